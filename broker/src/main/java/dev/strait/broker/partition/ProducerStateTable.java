package dev.strait.broker.partition;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Per-partition idempotent producer state, as Kafka's ProducerStateManager keeps it, reduced to what a single
 * node needs: per producer id the current epoch and the last {@value #CACHED_BATCHES} appended batches (sequence
 * range and offsets). A retried batch that was already appended is recognised as a duplicate and reported with
 * its original offsets (the caller answers it like the first attempt, acks=all waiting for the high watermark);
 * a sequence gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an older epoch is INVALID_PRODUCER_EPOCH.
 *
 * <p>The owning {@link Partition} persists it in {@link ProducerStateSnapshots} and, after a restart or a
 * truncation, rebuilds it from the latest snapshot plus the log after it. Not thread-safe: used under the owning
 * {@link Partition}'s lock.
 */
final class ProducerStateTable {

    /** Kafka keeps the last five batches per producer (max.in.flight.requests.per.connection with idempotence). */
    static final int CACHED_BATCHES = 5;

    /** One appended batch of a producer: its sequence range and where it is in the log. */
    record CachedBatch(int baseSequence, int lastSequence, long firstOffset, long lastOffset) {}

    /** A producer's epoch and last batches, oldest first, as a snapshot holds them. */
    record ProducerSnapshot(long producerId, short epoch, List<CachedBatch> batches) {
        ProducerSnapshot {
            batches = List.copyOf(batches);
        }
    }

    /** A batch that is already in the log: where it was appended. */
    record Duplicate(long firstOffset, long lastOffset) {}

    private static final class ProducerEntry {
        short epoch;
        /** The epoch of the coordinator that wrote this producer's last marker here; -1 if unknown (not persisted). */
        int coordinatorEpoch = -1;

        final Deque<CachedBatch> batches = new ArrayDeque<>();

        int lastSequence() {
            return batches.isEmpty() ? -1 : batches.getLast().lastSequence();
        }
    }

    private final Map<Long, ProducerEntry> producers = new HashMap<>();

    /** A producer as DescribeProducers shows it: its id, epoch and the last sequence appended. */
    record Active(long producerId, short epoch, int lastSequence) {}

    /** Every producer with state here, by id. */
    List<Active> active() {
        List<Active> out = new java.util.ArrayList<>();
        producers.forEach((id, entry) -> out.add(new Active(id, entry.epoch, entry.lastSequence())));
        out.sort(java.util.Comparator.comparingLong(Active::producerId));
        return out;
    }

    ProducerStateTable() {}

    /** A table holding exactly what {@link #snapshot()} returned. */
    static ProducerStateTable restore(List<ProducerSnapshot> snapshot) {
        ProducerStateTable table = new ProducerStateTable();
        for (ProducerSnapshot producer : snapshot) {
            ProducerEntry entry = new ProducerEntry();
            entry.epoch = producer.epoch();
            entry.batches.addAll(producer.batches());
            table.producers.put(producer.producerId(), entry);
        }
        return table;
    }

    /** Every known producer, ordered by id (so that equal states give equal snapshots). */
    List<ProducerSnapshot> snapshot() {
        return producers.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> new ProducerSnapshot(e.getKey(), e.getValue().epoch, List.copyOf(e.getValue().batches)))
                .toList();
    }

    /**
     * Checks batches about to be appended together, in order.
     *
     * @return the original offsets if the request is a single batch already in the log (append nothing then)
     * @throws ProducerStateException if the append must not happen (sequence or epoch error)
     */
    Optional<Duplicate> check(List<ProducerBatch> batches) {
        if (batches.size() == 1 && batches.get(0).isIdempotent()) {
            Optional<Duplicate> duplicate = findDuplicate(batches.get(0));
            if (duplicate.isPresent()) {
                return duplicate;
            }
        }
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
                checkAgainstState(batch);
            }
            nextInRequest.put(batch.producerId(), nextSequence(batch.lastSequence()));
        }
        return Optional.empty();
    }

    /** As Kafka: only a request of one batch is matched against the cached batches of its producer and epoch. */
    private Optional<Duplicate> findDuplicate(ProducerBatch batch) {
        ProducerEntry entry = producers.get(batch.producerId());
        if (entry == null || entry.epoch != batch.producerEpoch()) {
            return Optional.empty();
        }
        for (CachedBatch cached : entry.batches) {
            if (cached.baseSequence() == batch.baseSequence() && cached.lastSequence() == batch.lastSequence()) {
                return Optional.of(new Duplicate(cached.firstOffset(), cached.lastOffset()));
            }
        }
        return Optional.empty();
    }

    private void checkAgainstState(ProducerBatch batch) {
        ProducerEntry entry = producers.get(batch.producerId());
        if (entry == null) {
            return;
        }
        if (batch.producerEpoch() < entry.epoch) {
            throw new ProducerStateException(
                    ProducerStateException.Reason.INVALID_PRODUCER_EPOCH,
                    "producer " + batch.producerId() + " epoch " + batch.producerEpoch() + " is older than "
                            + entry.epoch);
        }
        if (batch.producerEpoch() > entry.epoch) {
            if (batch.baseSequence() != 0) {
                throw outOfOrder(batch, -1);
            }
            return;
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
                entry.batches.addLast(new CachedBatch(
                        batch.baseSequence(), batch.lastSequence(), offset, offset + batch.recordCount() - 1));
                while (entry.batches.size() > CACHED_BATCHES) {
                    entry.batches.removeFirst();
                }
            }
            offset += batch.recordCount();
        }
    }

    /** Whether a transaction coordinator's marker may be appended for a producer. */
    enum MarkerCheck {
        OK,
        /** The producer's epoch here is newer than the marker's. */
        PRODUCER_FENCED,
        /** A marker of a newer coordinator epoch was written for this producer. */
        COORDINATOR_FENCED
    }

    MarkerCheck checkMarker(long producerId, short producerEpoch, int coordinatorEpoch) {
        ProducerEntry entry = producers.get(producerId);
        if (entry == null) {
            return MarkerCheck.OK;
        }
        if (producerEpoch < entry.epoch) {
            return MarkerCheck.PRODUCER_FENCED;
        }
        if (coordinatorEpoch < entry.coordinatorEpoch) {
            return MarkerCheck.COORDINATOR_FENCED;
        }
        return MarkerCheck.OK;
    }

    /**
     * A marker was appended: a newer producer epoch replaces the producer's (its sequences start over, and the older
     * epoch is fenced), as the coordinator bumps it when it aborts a timed-out transaction.
     *
     * @param coordinatorEpoch the marker's coordinator epoch, or -1 when unknown (a replay of headers only)
     */
    void onMarker(long producerId, short producerEpoch, int coordinatorEpoch) {
        ProducerEntry entry = producers.computeIfAbsent(producerId, id -> new ProducerEntry());
        if (producerEpoch > entry.epoch) {
            entry.epoch = producerEpoch;
            entry.batches.clear();
        }
        entry.coordinatorEpoch = Math.max(entry.coordinatorEpoch, coordinatorEpoch);
    }

    private static int nextSequence(int sequence) {
        return sequence == Integer.MAX_VALUE ? 0 : sequence + 1;
    }

    private static ProducerStateException outOfOrder(ProducerBatch batch, int lastSequence) {
        return new ProducerStateException(
                ProducerStateException.Reason.OUT_OF_ORDER_SEQUENCE,
                "producer " + batch.producerId() + " sent sequence " + batch.baseSequence() + " after " + lastSequence);
    }
}
