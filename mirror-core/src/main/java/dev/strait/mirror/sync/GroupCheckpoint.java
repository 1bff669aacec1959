package dev.strait.mirror.sync;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A source group's committed offsets as the mirror last read them, persisted on the target so that a failover
 * with the source unreachable knows where each group stood.
 *
 * @param group the consumer group
 * @param timeMs when the mirror read them (its clock)
 * @param committed source partition to committed offset (the next record to read)
 * @param sourceEnds source partition to its log end offset at that time (what existed on the source)
 */
public record GroupCheckpoint(
        String group, long timeMs, Map<TopicPartition, Long> committed, Map<TopicPartition, Long> sourceEnds) {
    public GroupCheckpoint {
        committed = Map.copyOf(committed);
        sourceEnds = Map.copyOf(sourceEnds);
    }
}
