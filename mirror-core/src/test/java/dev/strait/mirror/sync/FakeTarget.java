package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * A target cluster as the offset map's upkeep sees it: each topic's id and, per partition, the source record each
 * offset holds a copy of (null: a record that is not a copy). Counts what is read.
 */
class FakeTarget implements TargetRecords {
    private final Map<String, String> ids = new HashMap<>();
    private final Map<TopicPartition, List<Fact>> logs = new HashMap<>();
    long recordsRead;

    /** Creates (or deletes and creates again) {@code topic}: a new id, empty partitions. */
    void create(String topic, String id) {
        ids.put(topic, id);
        logs.keySet().removeIf(tp -> tp.topic().equals(topic));
    }

    /** Appends a copy of {@code source}@{@code sourceOffset} (null source: a record that is not a copy). */
    long append(TopicPartition tp, TopicPartition source, long sourceOffset) {
        List<Fact> log = logs.computeIfAbsent(tp, k -> new ArrayList<>());
        long offset = log.size();
        log.add(source == null ? null : new Fact(offset, source, sourceOffset));
        return offset;
    }

    long end(TopicPartition tp) {
        return logs.getOrDefault(tp, List.of()).size();
    }

    @Override
    public Map<String, String> topicIds(Collection<String> topics) {
        Map<String, String> out = new HashMap<>();
        topics.forEach(t -> {
            if (ids.containsKey(t)) {
                out.put(t, ids.get(t));
            }
        });
        return out;
    }

    @Override
    public TargetReader.Range read(TopicPartition tp, long from, long to) {
        List<Fact> log = logs.getOrDefault(tp, List.of());
        long reached = Math.max(from, Math.min(to, log.size()));
        List<Fact> facts = new ArrayList<>();
        for (long o = from; o < reached; o++) {
            if (log.get((int) o) != null) {
                facts.add(log.get((int) o));
            }
        }
        recordsRead += reached - from;
        return new TargetReader.Range(from, reached, facts);
    }
}
