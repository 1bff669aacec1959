package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** What a sync topic holds, by source cluster: offset map snapshots, group checkpoints, failover markers. */
public final class SyncContents {
    private final Map<String, List<HistorySnapshot>> maps = new HashMap<>();
    private final Map<String, Map<String, GroupCheckpoint>> groups = new HashMap<>();
    private final Map<String, Map<String, FailoverMarker>> markers = new HashMap<>();

    /** Reads the whole topic (latest value per key). */
    public static SyncContents read(SyncTopic topic) {
        SyncContents c = new SyncContents();
        for (ConsumerRecord<byte[], byte[]> r : topic.readAll().values()) {
            SyncRecords.Key key = SyncRecords.parseKey(r.key());
            if (key == null) {
                continue;
            }
            switch (key.kind()) {
                case MAP -> {
                    SyncRecords.MapValue v = SyncRecords.decodeMap(r.value());
                    if (v != null) {
                        c.maps.computeIfAbsent(key.sourceCluster(), k -> new ArrayList<>())
                                .add(v.snapshot());
                    }
                }
                case GROUP -> {
                    GroupCheckpoint g = SyncRecords.decodeGroup(r.value());
                    if (g != null) {
                        c.groups
                                .computeIfAbsent(key.sourceCluster(), k -> new HashMap<>())
                                .merge(g.group(), g, SyncContents::union);
                    }
                }
                case FAILOVER -> {
                    FailoverMarker m = SyncRecords.decodeFailover(r.value());
                    if (m != null) {
                        c.markers
                                .computeIfAbsent(key.sourceCluster(), k -> new HashMap<>())
                                .put(m.targetTopic(), m);
                    }
                }
                default -> {}
            }
        }
        return c;
    }

    /** Two mirrors' checkpoints of one group (disjoint topics): the union, at the older time. */
    private static GroupCheckpoint union(GroupCheckpoint a, GroupCheckpoint b) {
        Map<org.apache.kafka.common.TopicPartition, Long> committed = new HashMap<>(a.committed());
        committed.putAll(b.committed());
        Map<org.apache.kafka.common.TopicPartition, Long> ends = new HashMap<>(a.sourceEnds());
        ends.putAll(b.sourceEnds());
        return new GroupCheckpoint(a.group(), Math.min(a.timeMs(), b.timeMs()), committed, ends);
    }

    /** Source clusters the topic holds anything for. */
    public Set<String> sourceClusters() {
        Set<String> out = new TreeSet<>(maps.keySet());
        out.addAll(groups.keySet());
        return out;
    }

    /** An offset map of one source cluster, from its persisted snapshots. */
    public OffsetMap offsetMap(String sourceCluster, int maxSegments) {
        OffsetMap map = new OffsetMap(sourceCluster, maxSegments);
        for (HistorySnapshot s : maps.getOrDefault(sourceCluster, List.of())) {
            map.merge(s);
        }
        return map;
    }

    public Map<String, GroupCheckpoint> checkpoints(String sourceCluster) {
        return groups.getOrDefault(sourceCluster, Map.of());
    }

    public Map<String, FailoverMarker> markers(String sourceCluster) {
        return markers.getOrDefault(sourceCluster, Map.of());
    }
}
