package dev.strait.broker.replication;

import java.util.Map;
import java.util.Set;

/**
 * A leader's request to the controller to change a partition's ISR (Kafka's AlterPartition). The controller
 * refuses it when {@code leaderEpoch} or {@code partitionEpoch} is not the current one. {@code brokerEpochs} names,
 * for a replica it adds, the broker epoch that replica fetched with (KIP-903), so that the controller can refuse
 * a replica that restarted since.
 */
public record IsrChange(
        int leader, int leaderEpoch, int partitionEpoch, Set<Integer> newIsr, Map<Integer, Long> brokerEpochs) {
    public IsrChange {
        newIsr = Set.copyOf(newIsr);
        brokerEpochs = Map.copyOf(brokerEpochs);
    }

    public IsrChange(int leader, int leaderEpoch, int partitionEpoch, Set<Integer> newIsr) {
        this(leader, leaderEpoch, partitionEpoch, newIsr, Map.of());
    }
}
