package dev.strait.broker.replication;

import java.util.Set;

/**
 * A leader's request to the controller to change a partition's ISR (Kafka's AlterPartition). The controller
 * refuses it when {@code leaderEpoch} or {@code partitionEpoch} is not the current one.
 */
public record IsrChange(int leader, int leaderEpoch, int partitionEpoch, Set<Integer> newIsr) {
    public IsrChange {
        newIsr = Set.copyOf(newIsr);
    }
}
