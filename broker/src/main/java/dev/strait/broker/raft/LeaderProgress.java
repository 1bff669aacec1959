package dev.strait.broker.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * What a leader knows about the voters in its epoch: for each, the end offset it has confirmed (by fetching from
 * that offset, which a follower does only after flushing everything before it) and when it last fetched. The
 * high watermark is the largest end offset a majority has confirmed, under Raft's rule that a leader may only
 * commit by counting replicas of an entry from its own epoch. For DescribeQuorum it also keeps, per voter and per
 * observer (a non-voter that fetches), the offset and time of its latest valid fetch and when it was last caught
 * up; observers never count towards the high watermark or the quorum check.
 *
 * <p>Not thread-safe; owned by the node's driver.
 */
final class LeaderProgress {

    private static final long NEVER = Long.MIN_VALUE;

    private final int selfId;
    private final Map<Integer, Long> confirmedEndOffsets = new TreeMap<>();
    private final Map<Integer, Long> lastFetchMs = new TreeMap<>();
    /** What DescribeQuorum reports; unlike {@link #lastFetchMs}, the election does not count as a fetch. */
    private final Map<Integer, Activity> voterActivity = new TreeMap<>();

    private final Map<Integer, Activity> observerActivity = new TreeMap<>();

    /** One replica's fetches as DescribeQuorum reports them; {@link #NEVER} or -1 where unknown. */
    private static final class Activity {
        long endOffset = -1;
        long lastFetchMs = NEVER;
        long leaderEndAtLastFetch = -1;
        long lastCaughtUpMs = NEVER;

        /** Kafka's rule for "caught up": fetching from the leader's end, or from the end it had at the last fetch. */
        void onFetch(long fetchOffset, long leaderEndOffset, long nowMs) {
            if (fetchOffset >= leaderEndOffset) {
                lastCaughtUpMs = Math.max(lastCaughtUpMs, nowMs);
            } else if (leaderEndAtLastFetch > 0 && fetchOffset >= leaderEndAtLastFetch) {
                lastCaughtUpMs = Math.max(lastCaughtUpMs, lastFetchMs);
            }
            leaderEndAtLastFetch = leaderEndOffset;
            lastFetchMs = Math.max(lastFetchMs, nowMs);
            endOffset = Math.max(endOffset, fetchOffset);
        }

        QuorumDescription.Replica describe(int nodeId) {
            return new QuorumDescription.Replica(nodeId, endOffset, optional(lastFetchMs), optional(lastCaughtUpMs));
        }

        private static OptionalLong optional(long ms) {
            return ms == NEVER ? OptionalLong.empty() : OptionalLong.of(ms);
        }
    }

    LeaderProgress(int selfId, Iterable<Integer> voters, long nowMs) {
        this.selfId = selfId;
        for (int voter : voters) {
            confirmedEndOffsets.put(voter, 0L);
            // Count the election itself as contact: the voters just granted their votes.
            lastFetchMs.put(voter, voter == selfId ? Long.MAX_VALUE : nowMs);
            voterActivity.put(voter, new Activity());
        }
    }

    boolean isVoter(int nodeId) {
        return confirmedEndOffsets.containsKey(nodeId);
    }

    /**
     * Records a validated fetch of a voter or an observer, made while this leader's log ended at
     * {@code leaderEndOffset}. Fetches may arrive reordered, so a smaller offset than one already confirmed is
     * ignored: the larger one was flushed by the follower and validated against this leader's log.
     */
    void onFetch(int replicaId, long fetchOffset, long leaderEndOffset, long nowMs) {
        if (replicaId == selfId) {
            return;
        }
        if (!isVoter(replicaId)) {
            observerActivity
                    .computeIfAbsent(replicaId, id -> new Activity())
                    .onFetch(fetchOffset, leaderEndOffset, nowMs);
            return;
        }
        Objects.requireNonNull(voterActivity.get(replicaId), "a voter's activity")
                .onFetch(fetchOffset, leaderEndOffset, nowMs);
        confirmedEndOffsets.merge(replicaId, fetchOffset, Math::max);
        lastFetchMs.put(replicaId, nowMs);
    }

    /**
     * The quorum as this leader sees it at {@code nowMs}. Forgets observers silent for
     * {@link QuorumDescription#OBSERVER_SESSION_MS}, as Kafka does.
     */
    QuorumDescription describe(int epoch, long highWatermark, long nowMs) {
        observerActivity.values().removeIf(a -> nowMs - a.lastFetchMs >= QuorumDescription.OBSERVER_SESSION_MS);
        List<QuorumDescription.Replica> voters = new ArrayList<>(voterActivity.size());
        for (Map.Entry<Integer, Activity> voter : voterActivity.entrySet()) {
            if (voter.getKey() == selfId) {
                voters.add(new QuorumDescription.Replica(
                        selfId,
                        Objects.requireNonNull(confirmedEndOffsets.get(selfId), "every voter has an end offset"),
                        OptionalLong.of(nowMs),
                        OptionalLong.of(nowMs)));
            } else {
                voters.add(voter.getValue().describe(voter.getKey()));
            }
        }
        List<QuorumDescription.Replica> observers = new ArrayList<>(observerActivity.size());
        observerActivity.forEach((id, activity) -> observers.add(activity.describe(id)));
        return new QuorumDescription(selfId, epoch, highWatermark, voters, observers);
    }

    /**
     * A voter that downloads a snapshot confirms no offset, but it is in touch: counting it keeps a leader whose
     * only other reachable voter is catching up from resigning for lack of a quorum.
     */
    void onContact(int voterId, long nowMs) {
        if (isVoter(voterId)) {
            lastFetchMs.put(voterId, nowMs);
        }
    }

    void onLocalFlush(long endOffset) {
        confirmedEndOffsets.put(selfId, endOffset);
    }

    /** Largest end offset confirmed by a majority of the voters. */
    long majorityEndOffset() {
        long[] ends = confirmedEndOffsets.values().stream()
                .mapToLong(Long::longValue)
                .sorted()
                .toArray();
        // ascending; the majority-th largest value sits at index (n - majority) = (n - 1) / 2
        return ends[(ends.length - 1) / 2];
    }

    /** Whether a majority of voters (the leader included) fetched within {@code windowMs} of {@code nowMs}. */
    boolean heardFromMajority(long nowMs, long windowMs) {
        long recent = lastFetchMs.values().stream()
                .filter(t -> t != NEVER && nowMs - t <= windowMs)
                .count();
        return recent > confirmedEndOffsets.size() / 2;
    }

    /** Voters other than the leader that have not fetched within {@code windowMs}. */
    int[] silentVoters(long nowMs, long windowMs) {
        return lastFetchMs.entrySet().stream()
                .filter(e -> e.getKey() != selfId && nowMs - e.getValue() > windowMs)
                .mapToInt(Map.Entry::getKey)
                .toArray();
    }

    @Override
    public String toString() {
        return "LeaderProgress" + confirmedEndOffsets;
    }
}
