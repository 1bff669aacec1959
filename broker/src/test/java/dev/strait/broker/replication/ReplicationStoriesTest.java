package dev.strait.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The two failure stories behind leader epochs (KIP-101), step by step with two replicas, A (id 0) and B (id 1).
 * Each runs twice: with truncation to the high watermark the story ends in loss or divergence; with
 * OffsetForLeaderEpoch it does not.
 */
class ReplicationStoriesTest {
    private static final int A = 0;
    private static final int B = 1;
    private static final long M1 = 101;
    private static final long M2 = 102;
    private static final long M3 = 103;

    private static ReplicationConfig config(TruncationRule rule) {
        return new ReplicationConfig(30_000, 1, rule);
    }

    private static PartitionAssignment assignment(int leader, int epoch, Set<Integer> isr, int partitionEpoch) {
        return new PartitionAssignment(leader, epoch, List.of(A, B), isr, partitionEpoch);
    }

    /** A leads B in epoch 0, both in the ISR, both logs empty. */
    private record Pair(MemoryLog logA, MemoryLog logB, PartitionReplica a, PartitionReplica b) {
        static Pair inEpochZero(TruncationRule rule) {
            MemoryLog logA = new MemoryLog();
            MemoryLog logB = new MemoryLog();
            PartitionReplica a = new PartitionReplica(A, logA, config(rule));
            PartitionReplica b = new PartitionReplica(B, logB, config(rule));
            PartitionAssignment epoch0 = assignment(A, 0, Set.of(A, B), 0);
            a.applyAssignment(epoch0, 0);
            b.applyAssignment(epoch0, 0);
            if (b.state() == PartitionReplica.State.FOLLOWER_TRUNCATING) {
                b.onEpochEndOffset(logA.endOffsetForEpoch(b.epochToQuery()));
            }
            return new Pair(logA, logB, a, b);
        }
    }

    /** A follower's fetch round trip: the leader learns the offset, the follower appends what comes back. */
    private static void fetch(
            PartitionReplica leader,
            MemoryLog leaderLog,
            PartitionReplica follower,
            MemoryLog followerLog,
            long nowMs) {
        long offset = follower.fetchOffset();
        leader.onFollowerFetch(follower.localId(), offset, nowMs);
        for (long o = offset; o < leaderLog.logEndOffset(); o++) {
            followerLog.appendAsFollower(o, leaderLog.entry(o));
        }
        follower.onFetchResponse(leader.highWatermark());
    }

    /** Story 1: B holds m2 above its high watermark, restarts, then A dies and B leads. */
    private static MemoryLog lossStory(TruncationRule rule) {
        Pair pair = Pair.inEpochZero(rule);
        MemoryLog logA = pair.logA();
        MemoryLog logB = pair.logB();
        PartitionReplica a = pair.a();
        PartitionReplica b = pair.b();

        logA.appendAsLeader(0, M1);
        a.onLeaderAppend();
        fetch(a, logA, b, logB, 1);
        fetch(a, logA, b, logB, 2);
        assertThat(logB.highWatermark()).isEqualTo(1);
        logA.appendAsLeader(0, M2);
        fetch(a, logA, b, logB, 3);
        // B fetches at 2: A's high watermark reaches 2 and m2 is acknowledged; B restarts before the answer.
        a.onFollowerFetch(B, 2, 4);
        assertThat(a.checkProduceCompletion(1, 0)).isEqualTo(ProduceCheck.OK);
        logB.flush();
        logB.crash(false);
        assertThat(logB.highWatermark()).as("m2 is above B's high watermark").isEqualTo(1);

        PartitionReplica restarted = new PartitionReplica(B, logB, config(rule));
        restarted.applyAssignment(assignment(A, 0, Set.of(A, B), 0), 5);
        // A dies before B hears back; the controller elects B, still in the ISR.
        restarted.applyAssignment(assignment(B, 1, Set.of(B), 1), 6);
        assertThat(restarted.state()).isEqualTo(PartitionReplica.State.LEADER);
        return logB;
    }

    @Test
    void lossWithHighWatermarkTruncation() {
        MemoryLog newLeader = lossStory(TruncationRule.HIGH_WATERMARK);
        assertThat(newLeader.entries())
                .as("the acknowledged m2 is gone")
                .extracting(MemoryLog.Entry::value)
                .containsExactly(M1);
    }

    @Test
    void noLossWithLeaderEpochs() {
        MemoryLog newLeader = lossStory(TruncationRule.LEADER_EPOCH);
        assertThat(newLeader.entries()).extracting(MemoryLog.Entry::value).containsExactly(M1, M2);
    }

    /**
     * Story 2: A has m1 m2 (high watermark 2), B lost m2 in a power failure; both died. B returns first, leads
     * epoch 1 and takes m3 at offset 1; then A returns as its follower.
     */
    private static List<MemoryLog> divergenceStory(TruncationRule rule) {
        Pair pair = Pair.inEpochZero(rule);
        MemoryLog logA = pair.logA();
        MemoryLog logB = pair.logB();
        PartitionReplica a = pair.a();
        PartitionReplica b = pair.b();
        logA.appendAsLeader(0, M1);
        fetch(a, logA, b, logB, 1);
        logB.flush();
        logA.appendAsLeader(0, M2);
        fetch(a, logA, b, logB, 2);
        fetch(a, logA, b, logB, 3);
        assertThat(logA.highWatermark()).isEqualTo(2);
        logA.flush();
        logA.crash(false);
        logB.crash(true);
        assertThat(logB.entries()).extracting(MemoryLog.Entry::value).containsExactly(M1);

        PartitionReplica newB = new PartitionReplica(B, logB, config(rule));
        newB.applyAssignment(assignment(B, 1, Set.of(A, B), 1), 10);
        logB.appendAsLeader(1, M3);
        newB.onLeaderAppend();

        PartitionReplica newA = new PartitionReplica(A, logA, config(rule));
        newA.applyAssignment(assignment(B, 1, Set.of(A, B), 1), 11);
        if (newA.state() == PartitionReplica.State.FOLLOWER_TRUNCATING) {
            newA.onEpochEndOffset(logB.endOffsetForEpoch(newA.epochToQuery()));
        }
        fetch(newB, logB, newA, logA, 12);
        fetch(newB, logB, newA, logA, 13);
        return List.of(logA, logB);
    }

    @Test
    void divergenceWithHighWatermarkTruncation() {
        List<MemoryLog> logs = divergenceStory(TruncationRule.HIGH_WATERMARK);
        assertThat(logs.get(0).entries()).extracting(MemoryLog.Entry::value).containsExactly(M1, M2);
        assertThat(logs.get(1).entries()).extracting(MemoryLog.Entry::value).containsExactly(M1, M3);
        assertThat(logs.get(0).highWatermark())
                .as("both call offset 1 committed, with different records")
                .isEqualTo(2);
        assertThat(logs.get(1).highWatermark()).isEqualTo(2);
    }

    @Test
    void noDivergenceWithLeaderEpochs() {
        List<MemoryLog> logs = divergenceStory(TruncationRule.LEADER_EPOCH);
        assertThat(logs.get(0).entries()).extracting(MemoryLog.Entry::value).containsExactly(M1, M3);
        assertThat(logs.get(0).entries()).isEqualTo(logs.get(1).entries());
        assertThat(logs.get(0).highWatermark()).isEqualTo(2);
    }
}
