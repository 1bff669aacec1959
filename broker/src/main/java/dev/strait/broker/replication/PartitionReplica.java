package dev.strait.broker.replication;

import dev.strait.broker.log.EpochEndOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * One replica of one partition: its role and what replication needs to know in it. Not thread-safe: the owner
 * (a partition's lock in the broker, the single simulation thread in tests) serialises every call.
 *
 * <p>States: {@code OFFLINE} until the controller's first assignment arrives; {@code LEADER};
 * {@code FOLLOWER_TRUNCATING} while it waits for the leader's answer to OffsetForLeaderEpoch; and
 * {@code FOLLOWER_FETCHING}. A newer assignment moves it between them; nothing else does, apart from the
 * truncation answer that moves a follower from truncating to fetching.
 */
public final class PartitionReplica {

    public enum State {
        OFFLINE,
        LEADER,
        FOLLOWER_TRUNCATING,
        FOLLOWER_FETCHING
    }

    /** What the leader knows of a follower, learned only from the offsets it fetches. */
    private static final class FollowerProgress {
        long logEndOffset = -1;
        long lastCaughtUpMs;
        long lastFetchLeaderLogEndOffset = -1;
        long lastFetchMs;
        /** The broker epoch the follower last fetched with; -1 if it did not say. */
        long brokerEpoch = -1;
    }

    private final int localId;
    private final ReplicaLog log;
    private ReplicationConfig config;

    private State state = State.OFFLINE;
    /** The controller's latest assignment; null while OFFLINE. */
    private @Nullable PartitionAssignment assignment;

    private long leaderEpochStartOffset;
    private final Map<Integer, FollowerProgress> followers = new HashMap<>();
    /** An ISR change sent to the controller and not answered yet; at most one at a time, as Kafka does. */
    private @Nullable IsrChange pendingIsrChange;
    /** The epoch a truncating follower asked about. */
    private int queriedEpoch = -1;

    public PartitionReplica(int localId, ReplicaLog log, ReplicationConfig config) {
        this.localId = localId;
        this.log = log;
        this.config = config;
    }

    /** The assignment of a replica that has one: every role but OFFLINE acts on it. */
    private PartitionAssignment current() {
        return Objects.requireNonNull(assignment, "an OFFLINE replica has no assignment");
    }

    public State state() {
        return state;
    }

    /** A topic's min.insync.replicas (or the broker's lag limit) changed; applies from the next check on. */
    public void updateConfig(ReplicationConfig newConfig) {
        this.config = newConfig;
    }

    public int localId() {
        return localId;
    }

    public Optional<PartitionAssignment> assignment() {
        return Optional.ofNullable(assignment);
    }

    public int leaderEpoch() {
        return assignment == null ? -1 : assignment.leaderEpoch();
    }

    public long highWatermark() {
        return log.highWatermark();
    }

    /**
     * As leader, the log end offset when its epoch began; empty otherwise. Until the high watermark reaches it, the
     * leader does not know where its predecessor's committed records end (KIP-207).
     */
    public OptionalLong leaderEpochStartOffset() {
        return state == State.LEADER ? OptionalLong.of(leaderEpochStartOffset) : OptionalLong.empty();
    }

    public long logEndOffset() {
        return log.logEndOffset();
    }

    /**
     * Applies an assignment the controller committed. An older leader epoch or partition epoch than the one
     * already applied is ignored (assignments can arrive late or twice).
     *
     * @return true if anything changed
     */
    public boolean applyAssignment(PartitionAssignment next, long nowMs) {
        if (!next.replicas().contains(localId)) {
            throw new IllegalArgumentException("replica " + localId + " is not among " + next.replicas());
        }
        if (assignment != null
                && (next.leaderEpoch() < assignment.leaderEpoch()
                        || next.leaderEpoch() == assignment.leaderEpoch()
                                && next.partitionEpoch() <= assignment.partitionEpoch())) {
            return false;
        }
        boolean newEpoch = assignment == null || next.leaderEpoch() > assignment.leaderEpoch();
        boolean wasLeader = state == State.LEADER;
        assignment = next;
        pendingIsrChange = null;
        if (next.leader() == localId) {
            if (newEpoch || !wasLeader) {
                becomeLeader(nowMs);
            } else {
                followReplicaChanges();
            }
        } else if (newEpoch || wasLeader || state == State.OFFLINE) {
            becomeFollower();
        }
        return true;
    }

    /** The node stopped: nothing is led or followed until the next assignment. */
    public void goOffline() {
        state = State.OFFLINE;
        assignment = null;
        followers.clear();
        pendingIsrChange = null;
    }

    private void becomeLeader(long nowMs) {
        state = State.LEADER;
        leaderEpochStartOffset = log.logEndOffset();
        log.assignEpoch(current().leaderEpoch(), leaderEpochStartOffset);
        followers.clear();
        for (int replica : current().replicas()) {
            if (replica != localId) {
                FollowerProgress progress = new FollowerProgress();
                // ISR members keep their place for a full lag interval after an election, as in Kafka.
                progress.lastCaughtUpMs = current().isr().contains(replica) ? nowMs : 0;
                followers.put(replica, progress);
            }
        }
        maybeAdvanceHighWatermark();
    }

    /**
     * The replica set changed under this leader in its epoch (a reassignment, KIP-455): removed replicas are
     * forgotten and added ones tracked from nothing, so they join the ISR only once they have caught up.
     */
    private void followReplicaChanges() {
        followers.keySet().retainAll(current().replicas());
        for (int replica : current().replicas()) {
            if (replica != localId && !followers.containsKey(replica)) {
                followers.put(replica, new FollowerProgress());
            }
        }
        maybeAdvanceHighWatermark();
    }

    private void becomeFollower() {
        followers.clear();
        if (config.truncationRule() == TruncationRule.HIGH_WATERMARK) {
            log.truncateTo(log.highWatermark());
            state = State.FOLLOWER_FETCHING;
        } else {
            state = State.FOLLOWER_TRUNCATING;
            queriedEpoch = log.latestEpoch();
        }
    }

    // ---- follower side -------------------------------------------------------------------------------

    /** The epoch a truncating follower asks the leader about (OffsetForLeaderEpoch); -1 if it has none. */
    public int epochToQuery() {
        requireState(State.FOLLOWER_TRUNCATING);
        return queriedEpoch;
    }

    /**
     * The leader's answer to OffsetForLeaderEpoch for {@link #epochToQuery()}. Truncates to where the two logs
     * agree. When the leader does not know the queried epoch and this log does not have the one the leader
     * answered with either, one round cannot tell, so the follower truncates as far as it can tell and asks
     * again about its next lower epoch (KIP-279).
     *
     * @return true if the follower now fetches, false if it asks again
     */
    public boolean onEpochEndOffset(EpochEndOffset answer) {
        requireState(State.FOLLOWER_TRUNCATING);
        if (queriedEpoch < 0 || answer.isUndefined()) {
            // Nothing to compare: only what is committed here is known to be on the leader too.
            log.truncateTo(Math.min(log.highWatermark(), answer.isUndefined() ? Long.MAX_VALUE : answer.endOffset()));
            state = State.FOLLOWER_FETCHING;
            return true;
        }
        EpochEndOffset ours = log.endOffsetForEpoch(answer.leaderEpoch());
        if (ours.isUndefined()) {
            log.truncateTo(Math.min(log.highWatermark(), answer.endOffset()));
            state = State.FOLLOWER_FETCHING;
            return true;
        }
        log.truncateTo(Math.min(answer.endOffset(), ours.endOffset()));
        if (ours.leaderEpoch() == answer.leaderEpoch()) {
            state = State.FOLLOWER_FETCHING;
            return true;
        }
        queriedEpoch = ours.leaderEpoch();
        return false;
    }

    /** The offset a fetching follower asks for next: its log end. */
    public long fetchOffset() {
        requireState(State.FOLLOWER_FETCHING);
        return log.logEndOffset();
    }

    /** After the records of a fetch response were appended: the leader's high watermark, capped by this log. */
    public void onFetchResponse(long leaderHighWatermark) {
        requireState(State.FOLLOWER_FETCHING);
        log.updateHighWatermark(Math.min(leaderHighWatermark, log.logEndOffset()));
    }

    // ---- leader side ---------------------------------------------------------------------------------

    /** Epoch fencing of a fetch, OffsetForLeaderEpoch or produce that names the leader epoch it expects. */
    public EpochCheck checkEpoch(int requestEpoch) {
        if (state != State.LEADER) {
            return EpochCheck.NOT_LEADER;
        }
        if (requestEpoch < 0 || requestEpoch == current().leaderEpoch()) {
            return EpochCheck.OK;
        }
        return requestEpoch < current().leaderEpoch() ? EpochCheck.FENCED : EpochCheck.UNKNOWN_EPOCH;
    }

    /** Before appending a produce: acks=all needs min.insync.replicas in the ISR. */
    public ProduceCheck checkAppend(boolean acksAll) {
        if (state != State.LEADER) {
            return ProduceCheck.NOT_LEADER;
        }
        if (acksAll && current().isr().size() < config.minInsyncReplicas()) {
            return ProduceCheck.NOT_ENOUGH_REPLICAS;
        }
        return ProduceCheck.OK;
    }

    /** After the leader appended: with no followers in the ISR the high watermark moves at once. */
    public boolean onLeaderAppend() {
        requireState(State.LEADER);
        return maybeAdvanceHighWatermark();
    }

    /**
     * Whether an acks=all produce whose last offset is {@code lastOffset}, appended in {@code appendEpoch}, is
     * done: the high watermark passed it with enough replicas in the ISR.
     */
    public ProduceCheck checkProduceCompletion(long lastOffset, int appendEpoch) {
        if (state != State.LEADER || current().leaderEpoch() != appendEpoch) {
            return ProduceCheck.NOT_LEADER;
        }
        if (log.highWatermark() <= lastOffset) {
            return ProduceCheck.PENDING;
        }
        return maximalIsr().size() >= config.minInsyncReplicas()
                ? ProduceCheck.OK
                : ProduceCheck.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
    }

    /**
     * A follower fetched from {@code fetchOffset}: everything below it is on the follower. Advances the high
     * watermark if it can and may ask the controller to add the follower to the ISR.
     *
     * @return an ISR expansion to send to the controller, if one is due
     */
    public Optional<IsrChange> onFollowerFetch(int followerId, long fetchOffset, long nowMs) {
        return onFollowerFetch(followerId, -1, fetchOffset, nowMs);
    }

    /**
     * As above, from a follower that fetched with broker epoch {@code brokerEpoch} (-1: unknown); an ISR expansion
     * names it, so the controller can refuse a follower that restarted since the fetch (KIP-903).
     */
    public Optional<IsrChange> onFollowerFetch(int followerId, long brokerEpoch, long fetchOffset, long nowMs) {
        requireState(State.LEADER);
        FollowerProgress progress = followers.get(followerId);
        if (progress == null) {
            throw new IllegalArgumentException("replica " + followerId + " does not follow " + this);
        }
        long leaderEnd = log.logEndOffset();
        if (fetchOffset > leaderEnd) {
            throw new IllegalArgumentException(
                    "follower " + followerId + " fetches " + fetchOffset + " beyond the leader's log end " + leaderEnd);
        }
        progress.logEndOffset = fetchOffset;
        progress.brokerEpoch = brokerEpoch;
        if (fetchOffset >= leaderEnd) {
            progress.lastCaughtUpMs = nowMs;
        } else if (fetchOffset >= progress.lastFetchLeaderLogEndOffset && progress.lastFetchLeaderLogEndOffset >= 0) {
            // Under steady load a follower is never level with the leader; reaching where the leader was at its
            // previous fetch means it was caught up then.
            progress.lastCaughtUpMs = Math.max(progress.lastCaughtUpMs, progress.lastFetchMs);
        }
        progress.lastFetchLeaderLogEndOffset = leaderEnd;
        progress.lastFetchMs = nowMs;
        maybeAdvanceHighWatermark();
        if (pendingIsrChange == null
                && !current().isr().contains(followerId)
                && fetchOffset >= log.highWatermark()
                && fetchOffset >= leaderEpochStartOffset) {
            Set<Integer> grown = new TreeSet<>(current().isr());
            grown.add(followerId);
            pendingIsrChange = new IsrChange(
                    localId,
                    current().leaderEpoch(),
                    current().partitionEpoch(),
                    grown,
                    brokerEpoch >= 0 ? Map.of(followerId, brokerEpoch) : Map.of());
            maybeAdvanceHighWatermark();
            return Optional.of(pendingIsrChange);
        }
        return Optional.empty();
    }

    /** Periodically: ISR members that have not caught up within replica.lag.time.max.ms are proposed for removal. */
    public Optional<IsrChange> maybeShrinkIsr(long nowMs) {
        if (state != State.LEADER || pendingIsrChange != null) {
            return Optional.empty();
        }
        Set<Integer> kept = new TreeSet<>();
        for (int member : current().isr()) {
            FollowerProgress progress = followers.get(member);
            if (member == localId
                    || progress != null && nowMs - progress.lastCaughtUpMs <= config.replicaLagTimeMaxMs()) {
                kept.add(member);
            }
        }
        if (kept.size() == current().isr().size()) {
            return Optional.empty();
        }
        pendingIsrChange =
                new IsrChange(localId, current().leaderEpoch(), current().partitionEpoch(), kept);
        return Optional.of(pendingIsrChange);
    }

    /**
     * The controller said it did not apply the pending ISR change (it checked it against the current epochs and
     * refused it, e.g. a fenced replica): the committed ISR stands, and the next fetch or check may propose again.
     * Any other outcome (no answer, a stale-epoch refusal that may follow a lost success) keeps the change pending
     * until a newer assignment replaces it, as Kafka does: the controller may have committed it, so the maximal
     * ISR must keep counting the replicas it adds (issue 11, defect 4).
     */
    public void onIsrChangeRejected() {
        pendingIsrChange = null;
    }

    public Optional<IsrChange> pendingIsrChange() {
        return Optional.ofNullable(pendingIsrChange);
    }

    /**
     * The ISR the high watermark and acks=all use: the committed one plus members a pending expansion adds. A
     * pending shrink does not count until committed, or a record could be acknowledged by fewer replicas
     * than the controller believes hold it.
     */
    public Set<Integer> maximalIsr() {
        if (assignment == null) {
            return Set.of();
        }
        if (pendingIsrChange == null
                || !pendingIsrChange.newIsr().containsAll(current().isr())) {
            return current().isr();
        }
        return pendingIsrChange.newIsr();
    }

    /**
     * The leader's log was flushed further (flush.on.ack): the high watermark may move now. False if it did not or
     * this replica does not lead.
     */
    public boolean onLogFlushed() {
        return maybeAdvanceHighWatermark();
    }

    private boolean maybeAdvanceHighWatermark() {
        if (state != State.LEADER) {
            return false;
        }
        // KIP-966: below min.insync.replicas nothing more is committed, so every replica the ISR loses meanwhile
        // (the controller's ELR) holds all that is, and may lead after an unclean shutdown of the rest. Capped at
        // the replica count, as Kafka's effective min ISR, so that a topic with fewer replicas still progresses.
        // The committed ISR counts, not the maximal one, as in Kafka: an expansion still pending may be refused,
        // and records committed meanwhile would be missing on the ELR members the controller may elect (issue 22,
        // found by ReplicationSimulationTest with the controller's rules).
        if (current().isr().size()
                < Math.min(config.minInsyncReplicas(), current().replicas().size())) {
            return false;
        }
        // Followers report only what they flushed in that mode, so the leader's own flushed end is the last gate.
        long candidate = log.acknowledgeableEndOffset();
        for (int member : maximalIsr()) {
            if (member == localId) {
                continue;
            }
            FollowerProgress progress = followers.get(member);
            if (progress == null || progress.logEndOffset < 0) {
                return false;
            }
            candidate = Math.min(candidate, progress.logEndOffset);
        }
        return log.updateHighWatermark(candidate);
    }

    private void requireState(State expected) {
        if (state != expected) {
            throw new IllegalStateException(this + " is " + state + ", not " + expected);
        }
    }

    @Override
    public String toString() {
        return "replica " + localId + " (" + state + ", epoch " + leaderEpoch() + ", leo " + log.logEndOffset()
                + ", hw " + log.highWatermark() + ")";
    }
}
