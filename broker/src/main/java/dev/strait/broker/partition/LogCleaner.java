package dev.strait.broker.partition;

import dev.strait.broker.log.CompactionTask;
import dev.strait.broker.log.LogStorageException;
import dev.strait.time.Time;
import java.io.IOException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's log cleaner: one background thread that, every {@code log.cleaner.backoff.ms}, runs one
 * compaction pass over each partition whose {@code cleanup.policy} includes {@code compact} and that has closed
 * segments written since its last pass, or kept tombstones at its last pass that are now past
 * {@code delete.retention.ms} (see {@link CompactionTask}). The key map of a pass is bounded by
 * {@code log.cleaner.dedupe.buffer.size}, and its reads and writes by {@code log.cleaner.io.max.bytes.per.second}.
 *
 * <p>A pass that fails (a segment deleted under it, a full disk) leaves the log as it was and is retried on the
 * next round; a failure while swapping takes the log offline, as any storage error does.
 *
 * <p>Thread-safe: {@link #startup} and {@link #close} may be called from any thread; passes run only on the
 * cleaner thread.
 */
public final class LogCleaner implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(LogCleaner.class);

    /** @param ioMaxBytesPerSecond {@code <= 0} for no limit */
    public record Config(long backoffMs, long dedupeBufferBytes, long ioMaxBytesPerSecond) {
        public Config {
            if (backoffMs < 1 || dedupeBufferBytes < 1) {
                throw new IllegalArgumentException("backoffMs and dedupeBufferBytes must be >= 1");
            }
        }
    }

    private final ReplicaManager replicaManager;
    private final Config settings;
    private final Time time;
    private final String threadName;
    /** Null until startup() (and after shutdown). */
    private @Nullable ScheduledExecutorService executor;

    public LogCleaner(ReplicaManager replicaManager, Config settings, Time time, int nodeId) {
        this.replicaManager = replicaManager;
        this.settings = settings;
        this.time = time;
        this.threadName = "strait-log-cleaner-" + nodeId;
    }

    public synchronized void startup() {
        if (executor != null) {
            throw new IllegalStateException("log cleaner already started");
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
        executor = started;
        started.scheduleWithFixedDelay(
                this::cleanAll, settings.backoffMs(), settings.backoffMs(), TimeUnit.MILLISECONDS);
    }

    /** One round over every partition, on the calling thread; returns how many partitions were compacted. */
    public int cleanAll() {
        int swapped = 0;
        for (Partition partition : replicaManager.partitions()) {
            if (Thread.currentThread().isInterrupted()) {
                break;
            }
            swapped += cleanOne(partition) ? 1 : 0;
        }
        return swapped;
    }

    private boolean cleanOne(Partition partition) {
        long beforeBytes = partition.sizeBytes();
        try {
            boolean swapped = partition.compact(settings.dedupeBufferBytes(), new RateLimit());
            if (swapped) {
                LOGGER.info(
                        "[LogCleaner] compacted {}: {} -> {} bytes",
                        partition.topicPartition(),
                        beforeBytes,
                        partition.sizeBytes());
            }
            return swapped;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (IOException e) {
            LOGGER.info(
                    "[LogCleaner] compaction of {} abandoned, will retry: {}",
                    partition.topicPartition(),
                    e.toString());
            return false;
        } catch (IllegalStateException | LogStorageException e) {
            // Closed (topic deleted, broker stopping) or offline: nothing to do until it is reopened.
            LOGGER.debug("[LogCleaner] skipping {}: {}", partition.topicPartition(), e.toString());
            return false;
        } catch (RuntimeException e) {
            LOGGER.error("[LogCleaner] compaction of {} failed", partition.topicPartition(), e);
            return false;
        }
    }

    /** Sleeps whenever a pass gets ahead of {@code log.cleaner.io.max.bytes.per.second}. */
    private final class RateLimit implements CompactionTask.IoThrottle {
        private final long startMs = time.milliseconds();
        private long bytes;

        @Override
        public void acquire(long newBytes) throws InterruptedException {
            if (settings.ioMaxBytesPerSecond() <= 0) {
                return;
            }
            bytes += newBytes;
            long dueMs = startMs + bytes * 1000 / settings.ioMaxBytesPerSecond();
            long aheadMs = dueMs - time.milliseconds();
            if (aheadMs > 0) {
                TimeUnit.MILLISECONDS.sleep(Math.min(aheadMs, 1000));
            }
        }
    }

    @Override
    public synchronized void close() {
        if (executor != null) {
            executor.shutdownNow();
            try {
                if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                    LOGGER.warn("[LogCleaner] thread did not stop within 10 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            executor = null;
        }
    }
}
