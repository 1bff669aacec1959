package dev.strait.broker.txn;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The marker sender's bookkeeping for one shard, as a pure state machine: which partitions of each decided
 * transaction still lack their commit or abort marker, and when to try them again. The sender asks for the
 * {@link #due} attempts, writes the markers (a local append where this node leads the partition, WriteTxnMarkers
 * to its leader otherwise) and reports each partition's {@link Outcome}; once every partition has its marker, the
 * round is done and the caller reports it to {@link TransactionShard#markersWritten}. A partition that fails is
 * tried again after the backoff, for as long as it takes: a decided transaction must reach every partition.
 *
 * <p>Not thread-safe: owned by the shard's loop.
 */
public final class MarkerRounds {

    /** What writing one partition's marker came to. */
    public enum Outcome {
        /** The marker is in the partition's log (or the partition had nothing open for the producer). */
        WRITTEN,
        /** The partition no longer exists: nothing to mark, counts as done (as Kafka). */
        GONE,
        /** Not written (no leader, not the leader, timeout): try again after the backoff. */
        RETRY,
        /** The partition knows a newer coordinator epoch: this coordinator was replaced; the round is dropped. */
        STALE_COORDINATOR
    }

    /** Markers to write now: the round, and the partitions of it still owed. */
    public record Attempt(WriteMarkers round, Set<TxnPartition> partitions) {
        public Attempt {
            partitions = Set.copyOf(partitions);
        }
    }

    private static final class Round {
        final WriteMarkers markers;
        final TreeSet<TxnPartition> owed;
        long nextAttemptMs;
        boolean inFlight;

        Round(WriteMarkers markers, long nowMs) {
            this.markers = markers;
            this.owed = new TreeSet<>(markers.partitions());
            this.nextAttemptMs = nowMs;
        }
    }

    private final long retryBackoffMs;
    private final Map<String, Round> rounds = new LinkedHashMap<>();

    public MarkerRounds(long retryBackoffMs) {
        if (retryBackoffMs <= 0) {
            throw new IllegalArgumentException("marker retry backoff must be positive: " + retryBackoffMs);
        }
        this.retryBackoffMs = retryBackoffMs;
    }

    /**
     * A decision is durable: its markers are owed, now. A round for the same transactional id replaces an older one
     * (the coordinator decides one transaction of an id at a time).
     *
     * @return the round if it owes nothing (a transaction with no partitions): done at once
     */
    public Optional<WriteMarkers> start(WriteMarkers markers, long nowMs) {
        if (markers.partitions().isEmpty()) {
            rounds.remove(markers.transactionalId());
            return Optional.of(markers);
        }
        rounds.put(markers.transactionalId(), new Round(markers, nowMs));
        return Optional.empty();
    }

    /** The attempts due now; each is in flight until its outcome is reported. */
    public List<Attempt> due(long nowMs) {
        List<Attempt> due = new ArrayList<>();
        for (Round round : rounds.values()) {
            if (!round.inFlight && round.nextAttemptMs <= nowMs) {
                round.inFlight = true;
                due.add(new Attempt(round.markers, round.owed));
            }
        }
        return due;
    }

    /** When the next attempt is due, if any round waits for one (for the loop's sleep). */
    public Optional<Long> nextDeadlineMs() {
        return rounds.values().stream()
                .filter(r -> !r.inFlight)
                .map(r -> r.nextAttemptMs)
                .min(Long::compare);
    }

    /**
     * The outcomes of an attempt. Ignored if the round was replaced or dropped meanwhile.
     *
     * @return the round if every partition has its marker now: report it to {@link TransactionShard#markersWritten}
     */
    public Optional<WriteMarkers> onOutcomes(Attempt attempt, Map<TxnPartition, Outcome> outcomes, long nowMs) {
        Round round = rounds.get(attempt.round().transactionalId());
        if (round == null || !round.markers.equals(attempt.round())) {
            return Optional.empty();
        }
        round.inFlight = false;
        for (Map.Entry<TxnPartition, Outcome> outcome : outcomes.entrySet()) {
            switch (outcome.getValue()) {
                case WRITTEN, GONE -> round.owed.remove(outcome.getKey());
                case RETRY -> {}
                case STALE_COORDINATOR -> {
                    rounds.remove(round.markers.transactionalId());
                    return Optional.empty();
                }
            }
        }
        if (round.owed.isEmpty()) {
            rounds.remove(round.markers.transactionalId());
            return Optional.of(round.markers);
        }
        round.nextAttemptMs = nowMs + retryBackoffMs;
        return Optional.empty();
    }

    /** Rounds not done yet. */
    public int size() {
        return rounds.size();
    }

    /** The shard was resigned: its new coordinator resends what is owed. */
    public void clear() {
        rounds.clear();
    }
}
