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
    /**
     * The target topic's max.message.bytes as last known: a record whose batch would be larger is refused by the
     * target. It can be stale (raised on the target since); a record over it is checked again against the
     * target's current value before it is refused ({@link RecordRouter#currentMaxMessageBytes}).
     */
    final int maxMessageBytes;

    Route(TargetTopics.TargetTopic target, int sourcePartition, PartitionMode mode, Provenance.Prefix provenance) {
        this(target.name(), sourcePartition, target.partitions(), mode, provenance, target.maxMessageBytes());
    }

    private Route(
            String targetTopic,
            int sourcePartition,
            int targetPartitions,
            PartitionMode mode,
            Provenance.Prefix provenance,
            int maxMessageBytes) {
        this.targetTopic = targetTopic;
        this.sourcePartition = sourcePartition;
        this.targetPartitions = targetPartitions;
        this.mode = mode;
        this.provenance = provenance;
        this.maxMessageBytes = maxMessageBytes;
    }

    /** The same route with the target topic's limit as it is now. */
    Route withMaxMessageBytes(int limit) {
        return new Route(targetTopic, sourcePartition, targetPartitions, mode, provenance, limit);
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
