package dev.strait.testkit;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Produces a bounded, paced stream of test records in a background thread: {@code perPartition}
 * records to each partition, at most {@code recordsPerSecond} in all, all acknowledged (acks=all) before
 * {@link #awaitDone} returns. Bounded in count and, through the pace, in time.
 */
public final class LoadGenerator implements AutoCloseable {
    private final Thread thread;
    private final AtomicLong sent = new AtomicLong();
    private volatile boolean stop;
    private volatile @Nullable Throwable error;

    public LoadGenerator(String bootstrap, String topic, int partitions, int perPartition, int recordsPerSecond) {
        thread = new Thread(
                () -> {
                    try (TestProducer producer = new TestProducer(bootstrap)) {
                        long start = System.nanoTime();
                        long n = 0;
                        for (int i = 0; i < perPartition && !stop; i++) {
                            for (int p = 0; p < partitions; p++) {
                                producer.raw()
                                        .send(
                                                TestProducer.record(topic, p, i, 1_700_000_000_000L + i, 100),
                                                (md, e) -> {
                                                    if (e != null) {
                                                        error = e;
                                                    }
                                                });
                                n++;
                            }
                            sent.set(n);
                            long dueNanos = start + TimeUnit.SECONDS.toNanos(1) * n / recordsPerSecond;
                            long waitNanos = dueNanos - System.nanoTime();
                            if (waitNanos > 0) {
                                TimeUnit.NANOSECONDS.sleep(waitNanos);
                            }
                        }
                        producer.raw().flush();
                    } catch (Throwable t) {
                        error = t;
                    }
                },
                "load-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    public long sent() {
        return sent.get();
    }

    /** Waits until every record was sent and acknowledged; fails if any send failed. */
    public void awaitDone(long timeoutSeconds) throws InterruptedException {
        thread.join(TimeUnit.SECONDS.toMillis(timeoutSeconds));
        if (thread.isAlive()) {
            throw new AssertionError("load generator did not finish in " + timeoutSeconds + " s");
        }
        if (error != null) {
            throw new AssertionError("load generator failed: " + error, error);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(60_000);
    }
}
