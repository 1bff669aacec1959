package dev.strait.mirror.engine;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows every copy a stream handed to the producer until the target acknowledged or rejected it, and
 * says, per source partition, the lowest source offset still owed: a record not yet acknowledged, or one
 * whose send failed and must not be skipped. The commit never passes that offset, whatever order the
 * producer's callbacks arrive in.
 *
 * <p>Threading: {@link #begin}, {@link #owedFrom}, {@link #forget} run on the stream's thread; the
 * {@link Send#acknowledged}/{@link Send#failed} callbacks on the producer's I/O thread. Each source
 * partition's state is guarded by its own lock; a partition that was forgotten (revoked, lost) gets a new
 * state object when it comes back, so a late callback for its old sends changes nothing.
 */
final class SendTracker {
    private static final Logger LOGGER = LoggerFactory.getLogger(SendTracker.class);

    private final AcknowledgementListener listener;
    private final Map<TopicPartition, PartitionSends> partitions = new ConcurrentHashMap<>();
    private final AtomicLong outstanding = new AtomicLong();
    /** Failures that were not skipped, in the order they happened (for the error message). */
    private final ConcurrentLinkedQueue<SendFailure> failures = new ConcurrentLinkedQueue<>();

    private volatile boolean failed;

    SendTracker(AcknowledgementListener listener) {
        this.listener = listener;
    }

    /** One copy of source record {@code offset} of {@code source} is about to be sent. */
    Send begin(TopicPartition source, long offset) {
        PartitionSends p = partitions.computeIfAbsent(source, PartitionSends::new);
        p.add(offset);
        outstanding.incrementAndGet();
        return new Send(p, offset);
    }

    /** A source record that failed before it could be sent (too large, handler error), as if its send failed. */
    void failedBeforeSend(TopicPartition source, long offset, Exception cause, boolean skip) {
        begin(source, offset).failed(cause, skip);
    }

    /**
     * The lowest source offset of {@code tp} that is owed (unacknowledged, or failed and not skipped), or
     * {@link Long#MAX_VALUE} when nothing is.
     */
    long owedFrom(TopicPartition tp) {
        PartitionSends p = partitions.get(tp);
        return p == null ? Long.MAX_VALUE : p.owedFrom();
    }

    /** {@link #owedFrom} of every partition that owes something. */
    Map<TopicPartition, Long> owed() {
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach((tp, p) -> {
            long o = p.owedFrom();
            if (o != Long.MAX_VALUE) {
                out.put(tp, o);
            }
        });
        return out;
    }

    /** The lowest failed (not skipped) source offset of each partition. */
    Map<TopicPartition, Long> firstFailed() {
        Map<TopicPartition, Long> out = new HashMap<>();
        partitions.forEach((tp, p) -> {
            long f = p.firstFailed();
            if (f != Long.MAX_VALUE) {
                out.put(tp, f);
            }
        });
        return out;
    }

    /** Copies handed to the producer and not yet completed, over all partitions. */
    long outstanding() {
        return outstanding.get();
    }

    /** Copies of {@code tps} handed to the producer and not yet completed. */
    long inFlight(Collection<TopicPartition> tps) {
        long n = 0;
        for (TopicPartition tp : tps) {
            PartitionSends p = partitions.get(tp);
            if (p != null) {
                n += p.pendingCopies();
            }
        }
        return n;
    }

    /** True once a send failed that was not skipped: the stream must stop. Stays true after {@link #forget}. */
    boolean failed() {
        return failed;
    }

    /** The first failure that was not skipped, or null. */
    SendFailure firstFailure() {
        return failures.peek();
    }

    /**
     * True when some partition has a copy in flight above its first failed offset: flushing would write it
     * after the gap the failed record left, and a restart would copy the failed record after it (out of order).
     */
    boolean pendingBeyondAFailure() {
        for (PartitionSends p : partitions.values()) {
            if (p.pendingBeyondFailure()) {
                return true;
            }
        }
        return false;
    }

    /** Drops what is known of partitions the stream no longer owns, failures included. */
    void forget(Collection<TopicPartition> tps) {
        tps.forEach(partitions::remove);
        failures.removeIf(f -> tps.contains(f.source()));
    }

    /** One copy in flight; its completion runs on the producer's I/O thread. */
    final class Send {
        private final PartitionSends partition;
        private final long offset;

        private Send(PartitionSends partition, long offset) {
            this.partition = partition;
            this.offset = offset;
        }

        TopicPartition source() {
            return partition.tp;
        }

        long offset() {
            return offset;
        }

        void acknowledged(TopicPartition target, long targetOffset) {
            partition.done(offset);
            outstanding.decrementAndGet();
            try {
                listener.acknowledged(partition.tp, offset, target, targetOffset);
            } catch (RuntimeException e) {
                LOGGER.warn("Acknowledgement listener failed for {}@{}: {}", partition.tp, offset, e.toString());
            }
        }

        /** The target rejected the copy; {@code skip} means the record is given up and may be committed past. */
        void failed(Exception cause, boolean skip) {
            if (skip) {
                partition.done(offset);
            } else {
                partition.failed(offset);
                failures.add(new SendFailure(partition.tp, offset, cause));
                failed = true;
            }
            outstanding.decrementAndGet();
        }
    }

    /** Sends of one source partition: copies pending per source offset, and the lowest failed offset. */
    private static final class PartitionSends {
        final TopicPartition tp;
        private final TreeMap<Long, Integer> pending = new TreeMap<>();
        private long firstFailed = Long.MAX_VALUE;

        PartitionSends(TopicPartition tp) {
            this.tp = tp;
        }

        synchronized void add(long offset) {
            pending.merge(offset, 1, Integer::sum);
        }

        synchronized void done(long offset) {
            pending.computeIfPresent(offset, (k, n) -> n == 1 ? null : n - 1);
        }

        synchronized void failed(long offset) {
            done(offset);
            firstFailed = Math.min(firstFailed, offset);
        }

        synchronized long owedFrom() {
            long lowestPending = pending.isEmpty() ? Long.MAX_VALUE : pending.firstKey();
            return Math.min(lowestPending, firstFailed);
        }

        synchronized long pendingCopies() {
            long n = 0;
            for (int copies : pending.values()) {
                n += copies;
            }
            return n;
        }

        synchronized long firstFailed() {
            return firstFailed;
        }

        synchronized boolean pendingBeyondFailure() {
            return firstFailed != Long.MAX_VALUE && pending.higherKey(firstFailed) != null;
        }
    }
}
