package dev.strait.broker.raft;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a leader knows about the voters in its epoch: for each, the end offset it has confirmed (by fetching from
 * that offset, which a follower does only after flushing everything before it) and when it last fetched. The
 * high watermark is the largest end offset a majority has confirmed, under Raft's rule that a leader may only
 * commit by counting replicas of an entry from its own epoch.
 *
 * <p>Not thread-safe; owned by the node's driver.
 */
final class LeaderProgress {

    private static final long NEVER = Long.MIN_VALUE;

    private final int selfId;
    private final Map<Integer, Long> confirmedEndOffsets = new TreeMap<>();
    private final Map<Integer, Long> lastFetchMs = new TreeMap<>();

    LeaderProgress(int selfId, Iterable<Integer> voters, long nowMs) {
        this.selfId = selfId;
        for (int voter : voters) {
            confirmedEndOffsets.put(voter, 0L);
            // Count the election itself as contact: the voters just granted their votes.
            lastFetchMs.put(voter, voter == selfId ? Long.MAX_VALUE : nowMs);
        }
    }

    boolean isVoter(int nodeId) {
        return confirmedEndOffsets.containsKey(nodeId);
    }

    /**
     * Records a validated fetch. Fetches may arrive reordered, so a smaller offset than one already confirmed
     * is ignored: the larger one was flushed by the follower and validated against this leader's log.
     */
    void onFetch(int voterId, long fetchOffset, long nowMs) {
        if (!isVoter(voterId)) {
            return;
        }
        confirmedEndOffsets.merge(voterId, fetchOffset, Math::max);
        lastFetchMs.put(voterId, nowMs);
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
        long[] ends = confirmedEndOffsets.values().stream().mapToLong(Long::longValue).sorted().toArray();
        // ascending; the majority-th largest value sits at index (n - majority) = (n - 1) / 2
        return ends[(ends.length - 1) / 2];
    }

    /** Whether a majority of voters (the leader included) fetched within {@code windowMs} of {@code nowMs}. */
    boolean heardFromMajority(long nowMs, long windowMs) {
        long recent = lastFetchMs.values().stream().filter(t -> t != NEVER && nowMs - t <= windowMs).count();
        return recent > confirmedEndOffsets.size() / 2;
    }

    /** Voters other than the leader that have not fetched within {@code windowMs}. */
    int[] silentVoters(long nowMs, long windowMs) {
        return lastFetchMs.entrySet().stream()
                .filter(e -> e.getKey() != selfId && nowMs - e.getValue() > windowMs)
                .mapToInt(Map.Entry::getKey).toArray();
    }

    @Override
    public String toString() {
        return "LeaderProgress" + confirmedEndOffsets;
    }
}
