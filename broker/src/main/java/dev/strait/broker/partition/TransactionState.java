package dev.strait.broker.partition;

import dev.strait.broker.log.RecordBatchHeader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A partition's transactions as its batches tell them (Kafka's ongoing-transaction table and aborted-transaction
 * index): the first offset of each producer's open transaction, and every aborted transaction's range. They give
 * the last stable offset (below which no transaction is open) and the aborted ranges a read_committed consumer
 * skips. Built from the batches as they are appended and, after a restart or a truncation, from the log again.
 * Not thread-safe: used under the owning partition's lock.
 */
final class TransactionState {

    /** An aborted transaction: its producer, its first data offset and the offset of its abort marker. */
    record Aborted(long producerId, long firstOffset, long lastOffset) {}

    /** A transaction not ended yet: where it began and the producer epoch it runs in. */
    record Open(long producerId, short producerEpoch, long firstOffset) {}

    private final Map<Long, Open> open = new HashMap<>();
    /** In marker order, so by {@code lastOffset}. */
    private final List<Aborted> aborted = new ArrayList<>();

    /** Takes one appended batch into account; batches come in offset order. */
    void onBatch(RecordBatchHeader batch) {
        if (batch.producerId() < 0) {
            return;
        }
        if (batch.isControl()) {
            Open ended = open.remove(batch.producerId());
            if (ended != null && batch.controlType() == RecordBatchHeader.CONTROL_ABORT) {
                aborted.add(new Aborted(batch.producerId(), ended.firstOffset(), batch.baseOffset()));
            }
            return;
        }
        if (batch.isTransactional()) {
            open.putIfAbsent(
                    batch.producerId(), new Open(batch.producerId(), batch.producerEpoch(), batch.baseOffset()));
        }
    }

    boolean isEmpty() {
        return open.isEmpty() && aborted.isEmpty();
    }

    void clear() {
        open.clear();
        aborted.clear();
    }

    /** The first offset of the oldest open transaction, or {@code Long.MAX_VALUE} if none is open. */
    long firstUnstableOffset() {
        long first = Long.MAX_VALUE;
        for (Open transaction : open.values()) {
            first = Math.min(first, transaction.firstOffset());
        }
        return first;
    }

    /** The transactions not ended yet, oldest first. */
    List<Open> open() {
        List<Open> result = new ArrayList<>(open.values());
        result.sort(java.util.Comparator.comparingLong(Open::firstOffset));
        return result;
    }

    /** The aborted transactions a read from {@code fetchOffset} up to (excluding) {@code upperBound} may meet. */
    List<Aborted> abortedBetween(long fetchOffset, long upperBound) {
        List<Aborted> result = new ArrayList<>();
        for (Aborted a : aborted) {
            if (a.lastOffset() >= fetchOffset && a.firstOffset() < upperBound) {
                result.add(a);
            }
        }
        return result;
    }

    /** Forgets aborted transactions wholly below the log start: no read can meet them any more. */
    void dropBelow(long logStartOffset) {
        aborted.removeIf(a -> a.lastOffset() < logStartOffset);
    }
}
