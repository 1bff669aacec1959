package dev.strait.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A reassignment (KIP-455) changes a partition's replicas under its leader, in the leader's epoch: the leader
 * tracks an added replica from nothing (it joins the ISR once caught up) and forgets a removed one.
 */
class ReassignedReplicasTest {
    private static final int A = 0;
    private static final int B = 1;
    private static final int C = 2;

    @Test
    void aReplicaAddedInTheLeadersEpochIsFollowedAndJoinsTheIsrOnceCaughtUp() {
        // Given A leading {A, B} in epoch 0 with 3 records, all in sync
        MemoryLog log = new MemoryLog();
        PartitionReplica a =
                new PartitionReplica(A, log, new ReplicationConfig(30_000, 1, TruncationRule.LEADER_EPOCH));
        a.applyAssignment(new PartitionAssignment(A, 0, List.of(A, B), Set.of(A, B), 0), 0);
        for (int value = 1; value <= 3; value++) {
            log.appendAsLeader(0, value);
        }
        a.onLeaderAppend();
        a.onFollowerFetch(B, 3, 1);

        // When C is added in the same leader epoch (replicas {A, B, C}, C adding) and fetches from the start
        a.applyAssignment(new PartitionAssignment(A, 0, List.of(A, B, C), Set.of(A, B), 1), 2);

        // Then it is followed, not yet in sync; caught up, it is proposed for the ISR
        assertThat(a.onFollowerFetch(C, 0, 3)).isEmpty();
        assertThat(a.onFollowerFetch(C, 3, 4).orElseThrow().newIsr()).containsExactlyInAnyOrder(A, B, C);

        // And once the move completes without B, B is no longer followed
        a.applyAssignment(new PartitionAssignment(A, 0, List.of(A, C), Set.of(A, C), 2), 5);
        assertThatThrownBy(() -> a.onFollowerFetch(B, 3, 6)).isInstanceOf(IllegalArgumentException.class);
    }
}
