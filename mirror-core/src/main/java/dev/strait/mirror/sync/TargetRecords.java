package dev.strait.mirror.sync;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** What the offset map's upkeep reads of the target: which incarnation each topic is, and the copies in a range. */
public interface TargetRecords {
    /**
     * The id of each of {@code topics} that exists on the target (a topic deleted and created again has a new one);
     * topics missing there are left out.
     */
    Map<String, String> topicIds(Collection<String> topics);

    /**
     * Reads {@code [from, to)} of {@code tp} (stopping earlier at the partition's end or after a timeout) and
     * returns the copies of the source cluster's records in it.
     */
    TargetReader.Range read(TopicPartition tp, long from, long to);
}
