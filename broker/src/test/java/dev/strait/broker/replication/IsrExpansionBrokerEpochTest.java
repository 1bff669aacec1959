package dev.strait.broker.replication;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, defect 1 (KIP-903, KIP-966) on the leader: an ISR expansion names the broker epoch the follower fetched
 * with, and the high watermark stays while the ISR is below min.insync.replicas.
 */
class IsrExpansionBrokerEpochTest {
    private static final int A = 0;
    private static final int B = 1;

    private static PartitionReplica leaderWithIsrOfItself(MemoryLog log, int minInsync) {
        PartitionReplica a =
                new PartitionReplica(A, log, new ReplicationConfig(30_000, minInsync, TruncationRule.LEADER_EPOCH));
        a.applyAssignment(new PartitionAssignment(A, 0, List.of(A, B), Set.of(A), 0), 0);
        return a;
    }

    @Test
    void anExpansionCarriesTheBrokerEpochTheFollowerFetchedWith() {
        MemoryLog log = new MemoryLog();
        PartitionReplica a = leaderWithIsrOfItself(log, 1);

        IsrChange change = a.onFollowerFetch(B, 42, 0, 1).orElseThrow();

        assertThat(change.newIsr()).containsExactlyInAnyOrder(A, B);
        assertThat(change.brokerEpochs()).isEqualTo(Map.of(B, 42L));
    }

    @Test
    void theHighWatermarkStaysWhileTheIsrIsBelowMinInsync() {
        MemoryLog log = new MemoryLog();
        PartitionReplica a = leaderWithIsrOfItself(log, 2);
        log.appendAsLeader(0, 101);

        a.onLeaderAppend();

        assertThat(log.highWatermark())
                .as("ISR {A} is below min.insync.replicas=2")
                .isZero();
    }
}
