package dev.strait.broker.partition;

import dev.strait.broker.log.LogClosedException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group-commit flusher of one log directory for flush.on.ack partitions: an append asks for a flush of its
 * partition; the flusher's threads fsync each partition that asked, and appends that arrive during an fsync are
 * taken by the next one, so a burst of produce requests costs one fsync per partition rather than one each.
 * Partitions are flushed in parallel ({@value #THREADS} threads): the file system commits concurrent fsyncs
 * together, where one after the other each would wait for its own journal commit. After a flush that moved a
 * high watermark the waiting acks=all produces are completed.
 *
 * <p>Thread-safe: {@link #request} may be called from any thread; flushes run on the flusher's threads (two of
 * the same partition may overlap; the partition keeps the larger flushed offset).
 */
final class LogFlusher implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(LogFlusher.class);
    static final int THREADS = 4;

    private final Set<Partition> requested = ConcurrentHashMap.newKeySet();
    private final ExecutorService threads;
    private final Consumer<Partition> onHighWatermarkMoved;

    LogFlusher(int localId, Consumer<Partition> onHighWatermarkMoved) {
        this.onHighWatermarkMoved = onHighWatermarkMoved;
        AtomicInteger count = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(THREADS, r -> {
            Thread t = new Thread(r, "strait-log-flusher-" + localId + "-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** Asks for a flush of {@code partition}; a request already waiting covers this one too. */
    void request(Partition partition) {
        if (!requested.add(partition)) {
            return;
        }
        try {
            threads.execute(() -> flush(partition));
        } catch (RejectedExecutionException e) {
            requested.remove(partition); // shutting down
        }
    }

    private void flush(Partition partition) {
        // Taken off first: an append during the fsync below asks again and is flushed by the next round.
        requested.remove(partition);
        try {
            if (partition.flushForAck()) {
                onHighWatermarkMoved.accept(partition);
            }
        } catch (LogClosedException e) {
            LOGGER.debug("{} was closed before its flush", partition.topicPartition());
        } catch (RuntimeException e) {
            // The log is offline now (LogStorageException) or the flush failed otherwise: acks=all on it waits
            // until it times out, and a restart recovers the log.
            LOGGER.warn("flushing {} failed: {}", partition.topicPartition(), e.toString());
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}
