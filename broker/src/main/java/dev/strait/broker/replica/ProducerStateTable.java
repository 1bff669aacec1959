package dev.strait.broker.replica;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-partition idempotent producer state, as Kafka's ProducerStateManager keeps it, reduced to what a single
 * node needs: per producer id the current epoch and the last {@value #CACHED_BATCHES} appended batches (sequence
 * range and offsets). A retried batch that was already appended is recognised as a duplicate and answered with
 * its original offset; a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an older epoch is INVALID_PRODUCER_EPOCH.
 *
 * <p>In memory only: after a restart every producer is unknown, and the first batch of an unknown producer is
 * accepted whatever its sequence (Kafka rebuilds this state from the log instead). Not thread-safe: used under the
 * owning {@link Partition}'s lock.
 */
final class ProducerStateTable {

    /** Kafka keeps the last five batches per producer (max.in.flight.requests.per.connection with idempotence). */
    static final int CACHED_BATCHES = 5;

    private record CachedBatch(int baseSequence, int lastSequence, long firstOffset) {
    }

    private static final class ProducerEntry {
        short epoch;
        final Deque<CachedBatch> batches = new ArrayDeque<>();

        int lastSequence() {
            return batches.isEmpty() ? -1 : batches.getLast().lastSequence();
        }
    }

    private final Map<Long, ProducerEntry> producers = new HashMap<>();

    /**
     * Checks batches about to be appended together, in order.
     *
     * @throws ProducerStateException if the append must not happen (duplicate or error)
     */
    void check(List<ProducerBatch> batches) {
        Map<Long, Integer> nextInRequest = new HashMap<>();
        for (ProducerBatch batch : batches) {
            if (!batch.isIdempotent()) {
                continue;
            }
            Integer expected = nextInRequest.get(batch.producerId());
            if (expected != null) {
                if (batch.baseSequence() != expected) {
                    throw outOfOrder(batch, expected - 1);
                }
            } else {
                checkAgainstState(batch, batches.size() == 1);
            }
            nextInRequest.put(batch.producerId(), nextSequence(batch.lastSequence()));
        }
    }

    private void checkAgainstState(ProducerBatch batch, boolean onlyBatch) {
        ProducerEntry entry = producers.get(batch.producerId());
        if (entry == null) {
            return;
        }
        if (batch.producerEpoch() < entry.epoch) {
            throw new ProducerStateException(ProducerStateException.Reason.INVALID_PRODUCER_EPOCH,
                    "producer " + batch.producerId() + " epoch " + batch.producerEpoch() + " is older than "
                            + entry.epoch, -1);
        }
        if (batch.producerEpoch() > entry.epoch) {
            if (batch.baseSequence() != 0) {
                throw outOfOrder(batch, -1);
            }
            return;
        }
        if (onlyBatch) {
            for (CachedBatch cached : entry.batches) {
                if (cached.baseSequence() == batch.baseSequence() && cached.lastSequence() == batch.lastSequence()) {
                    throw new ProducerStateException(ProducerStateException.Reason.DUPLICATE,
                            "duplicate of the batch at offset " + cached.firstOffset(), cached.firstOffset());
                }
            }
        }
        int last = entry.lastSequence();
        if (last >= 0 && batch.baseSequence() != nextSequence(last)) {
            throw outOfOrder(batch, last);
        }
    }

    /** Records batches that were appended, {@code firstOffset} being the first offset of the first batch. */
    void update(List<ProducerBatch> batches, long firstOffset) {
        long offset = firstOffset;
        for (ProducerBatch batch : batches) {
            if (batch.isIdempotent()) {
                ProducerEntry entry = producers.computeIfAbsent(batch.producerId(), id -> new ProducerEntry());
                if (batch.producerEpoch() != entry.epoch) {
                    entry.epoch = batch.producerEpoch();
                    entry.batches.clear();
                }
                entry.batches.addLast(new CachedBatch(batch.baseSequence(), batch.lastSequence(), offset));
                while (entry.batches.size() > CACHED_BATCHES) {
                    entry.batches.removeFirst();
                }
            }
            offset += batch.recordCount();
        }
    }

    private static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }

    private static ProducerStateException outOfOrder(ProducerBatch batch, int lastSequence) {
        return new ProducerStateException(ProducerStateException.Reason.OUT_OF_ORDER_SEQUENCE,
                "producer " + batch.producerId() + " sent sequence " + batch.baseSequence() + " after "
                        + lastSequence, -1);
    }
}
