package dev.strait.broker.replica;

import dev.strait.broker.log.LogClosedException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group-commit flusher of one log directory for flush.on.ack partitions: an append asks for a flush of its
 * partition; one thread fsyncs each partition that asked, and appends that arrive during an fsync are taken by
 * the next one, so a burst of produce requests costs one fsync per partition rather than one each. After a flush
 * that moved a high watermark the waiting acks=all produces are completed.
 *
 * <p>Thread-safe: {@link #request} may be called from any thread; flushes run on the flusher's own thread.
 */
final class LogFlusher implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(LogFlusher.class);

    private final Set<Partition> requested = ConcurrentHashMap.newKeySet();
    private final ExecutorService thread;
    private final Consumer<Partition> onHighWatermarkMoved;

    LogFlusher(int localId, Consumer<Partition> onHighWatermarkMoved) {
        this.onHighWatermarkMoved = onHighWatermarkMoved;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strait-log-flusher-" + localId);
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
            thread.execute(() -> flush(partition));
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
        thread.shutdownNow();
    }
}
