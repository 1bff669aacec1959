package dev.strait.broker.link;

import dev.strait.broker.metadata.MirrorTruncation;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.PartitionRoleException;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.partition.TopicConfigs;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/** The mirror fetcher's view of this node's partitions, through the replica manager. */
public final class ReplicaManagerMirrorTargets implements MirrorTargets {
    private final ReplicaManager replicaManager;

    public ReplicaManagerMirrorTargets(ReplicaManager replicaManager) {
        this.replicaManager = replicaManager;
    }

    @Override
    public List<LedMirror> ledMirrors() {
        return led(false);
    }

    @Override
    public List<LedMirror> promotedWithOpenTransactions() {
        return led(true);
    }

    private List<LedMirror> led(boolean promoted) {
        List<LedMirror> led = new ArrayList<>();
        for (Partition partition : replicaManager.partitions()) {
            if (!partition.isLeader() || (promoted && !partition.hasOpenTransactions())) {
                continue;
            }
            TopicPartition tp = partition.topicPartition();
            Optional<TopicMetadata> topic =
                    replicaManager.topic(tp.topic()).filter(t -> t.topicId().equals(partition.topicId()));
            Optional<MirrorSpec> spec = topic.flatMap(MirrorSpec::from);
            if (spec.isPresent() && spec.get().promoted() == promoted && !awaitsCut(partition, topic.get())) {
                led.add(new LedMirror(tp, partition.leaderEpoch(), partition.logEndOffset(), spec.get()));
            }
        }
        return led;
    }

    /** A failback asked for a cut this replica has not made yet: copying first would copy onto the old suffix. */
    private static boolean awaitsCut(Partition partition, TopicMetadata topic) {
        Optional<MirrorTruncation> cut = MirrorTruncation.from(topic.configs());
        return cut.isPresent()
                && cut.get().offsetOf(partition.topicPartition().partition()).isPresent()
                && !partition.cutApplied(cut.get().id());
    }

    @Override
    public List<Long> abortOpenTransactions(TopicPartition partition, int leaderEpoch) {
        List<Long> aborted = led(partition)
                .abortOpenTransactions(leaderEpoch, replicaManager.time().milliseconds());
        replicaManager.onHighWatermarkMaybeMoved(partition);
        return aborted;
    }

    @Override
    public long append(TopicPartition partition, int leaderEpoch, long requiredBaseOffset, ByteBuffer records) {
        return replicaManager.appendMirrored(partition, leaderEpoch, requiredBaseOffset, records);
    }

    @Override
    public boolean restartAt(TopicPartition partition, int leaderEpoch, long sourceLogStartOffset) {
        return led(partition).restartMirrorAt(leaderEpoch, sourceLogStartOffset);
    }

    @Override
    public void followSourceLogStart(TopicPartition partition, int leaderEpoch, long sourceLogStartOffset) {
        led(partition).followSourceLogStart(leaderEpoch, sourceLogStartOffset);
    }

    @Override
    public void pinSourceTopicId(String topic, Uuid sourceTopicId) {
        TopicMetadata current = replicaManager
                .topic(topic)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + topic + "'"));
        Map<String, String> configs = new LinkedHashMap<>(current.configs());
        configs.put(TopicConfigs.MIRROR_SOURCE_TOPIC_ID, sourceTopicId.toString());
        replicaManager.changeTopicConfigs(topic, current.configs(), configs, false);
    }

    @Override
    public Optional<MirrorLineage> lineage(TopicPartition partition) {
        return replicaManager
                .topic(partition.topic())
                .map(t -> MirrorLineage.decodeTopic(t.configs().getOrDefault(TopicConfigs.MIRROR_SOURCE_LINEAGE, ""))
                        .get(partition.partition()));
    }

    @Override
    public void recordLineage(TopicPartition partition, int leaderEpoch, MirrorLineage lineage) {
        // One lock with the admin path's read-modify-write of the configs on this node (ReplicaManager's). The write is
        // a difference from what was read, so a pause or promote another node wrote meanwhile is kept; another
        // node's leader writing its partition's lineage into the same key at once can still replace this one: the
        // fetcher checks and writes again.
        synchronized (replicaManager) {
            Partition led = led(partition);
            if (!led.isLeader() || led.leaderEpoch() != leaderEpoch) {
                throw new PartitionRoleException(
                        PartitionRoleException.Reason.FENCED_EPOCH,
                        partition + " is not led here in epoch " + leaderEpoch);
            }
            TopicMetadata current = replicaManager
                    .topic(partition.topic())
                    .orElseThrow(() -> new UnknownTopicException("unknown topic '" + partition.topic() + "'"));
            Optional<MirrorSpec> spec = MirrorSpec.from(current);
            if (spec.isEmpty() || spec.get().state() != MirrorSpec.State.MIRRORING) {
                // A pause or promote arrived since the round began: writing the configs read before would undo it.
                throw new PartitionRoleException(
                        PartitionRoleException.Reason.NOT_LEADER, partition.topic() + " no longer copies");
            }
            Map<String, String> configs = new LinkedHashMap<>(current.configs());
            Map<Integer, MirrorLineage> all =
                    MirrorLineage.decodeTopic(configs.getOrDefault(TopicConfigs.MIRROR_SOURCE_LINEAGE, ""));
            all.put(partition.partition(), lineage);
            configs.put(TopicConfigs.MIRROR_SOURCE_LINEAGE, MirrorLineage.encodeTopic(all));
            replicaManager.changeTopicConfigs(partition.topic(), current.configs(), configs, false);
        }
    }

    private Partition led(TopicPartition tp) {
        return replicaManager
                .partition(tp)
                .orElseThrow(() -> new PartitionRoleException(
                        PartitionRoleException.Reason.NOT_LEADER, "no partition " + tp + " here"));
    }
}
