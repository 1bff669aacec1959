package dev.strait.mirror.engine;

import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.provenance.Provenance;
import org.apache.kafka.common.utils.Utils;

/**
 * Where the records of one source partition go: the target topic, the target partition rule and the
 * provenance header prefix. Built once per assigned partition, so the per-record path does no lookups.
 * Immutable.
 */
final class Route {
    final String targetTopic;
    final int sourcePartition;
    final int targetPartitions;
    final PartitionMode mode;
    final Provenance.Prefix provenance;

    Route(String targetTopic, int sourcePartition, int targetPartitions, PartitionMode mode, Provenance.Prefix provenance) {
        this.targetTopic = targetTopic;
        this.sourcePartition = sourcePartition;
        this.targetPartitions = targetPartitions;
        this.mode = mode;
        this.provenance = provenance;
    }

    int partitionFor(byte[] key) {
        return partitionFor(mode, sourcePartition, targetPartitions, key);
    }

    static int partitionFor(PartitionMode mode, int sourcePartition, int targetPartitions, byte[] key) {
        if (mode == PartitionMode.PRESERVE && sourcePartition < targetPartitions) {
            return sourcePartition;
        }
        if (key == null) {
            return sourcePartition % targetPartitions;
        }
        return Utils.toPositive(Utils.murmur2(key)) % targetPartitions;
    }
}
