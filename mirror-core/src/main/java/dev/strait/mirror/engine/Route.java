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
    /** The target topic's max.message.bytes: a record whose batch would be larger is refused by the target. */
    final int maxMessageBytes;

    Route(TargetTopics.TargetTopic target, int sourcePartition, PartitionMode mode, Provenance.Prefix provenance) {
        this.targetTopic = target.name();
        this.sourcePartition = sourcePartition;
        this.targetPartitions = target.partitions();
        this.mode = mode;
        this.provenance = provenance;
        this.maxMessageBytes = target.maxMessageBytes();
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
