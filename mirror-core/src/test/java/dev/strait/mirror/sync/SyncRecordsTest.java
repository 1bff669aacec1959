package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class SyncRecordsTest {
    private static final TopicPartition A = new TopicPartition("orders", 0);
    private static final TopicPartition T = new TopicPartition("dc1.orders", 0);

    @Test
    void anOffsetMapSurvivesTheSyncTopic() {
        TargetHistory h = new TargetHistory(T, 100);
        for (long s = 0; s < 50; s++) {
            h.acknowledged(A, s, s);
        }
        for (long s = 30; s < 80; s++) {
            h.acknowledged(A, s, s + 20);
        }
        byte[] value = SyncRecords.encode(h.snapshot(), "writer-1");
        SyncRecords.MapValue decoded = SyncRecords.decodeMap(value);
        assertThat(decoded.writer()).isEqualTo("writer-1");
        TargetHistory back = new TargetHistory(T, 100);
        back.merge(decoded.snapshot());
        for (long c = 0; c <= 81; c++) {
            assertThat(back.index().translate(Map.of(A, c))).isEqualTo(h.index().translate(Map.of(A, c)));
        }
        SyncRecords.Key key = SyncRecords.parseKey(SyncRecords.mapKey("cluster-1", T));
        assertThat(key).isEqualTo(new SyncRecords.Key(SyncRecords.Kind.MAP, "cluster-1", "dc1.orders", 0));
    }

    @Test
    void checkpointsAndMarkersRoundTripAndGarbageIsIgnored() {
        GroupCheckpoint c = new GroupCheckpoint("billing|eu", 1234, Map.of(A, 10L), Map.of(A, 99L));
        assertThat(SyncRecords.decodeGroup(SyncRecords.encode(c))).isEqualTo(c);
        FailoverMarker m = new FailoverMarker("dc1.orders", 5678, Map.of(0, 42L, 1, 7L));
        assertThat(SyncRecords.decodeFailover(SyncRecords.encode(m))).isEqualTo(m);
        assertThat(SyncRecords.parseKey(SyncRecords.groupKey("cl", "billing|eu", "mirror"))
                        .kind())
                .isEqualTo(SyncRecords.Kind.GROUP);
        assertThat(SyncRecords.decodeMap(new byte[] {9, 1, 2})).isNull();
        assertThat(SyncRecords.decodeMap(null)).isNull();
        assertThat(SyncRecords.decodeGroup(new byte[] {1, 0})).isNull();
        assertThat(SyncRecords.parseKey("nonsense".getBytes(StandardCharsets.UTF_8)))
                .isNull();
        assertThat(SyncRecords.parseKey("map|x|topic|notanumber".getBytes(StandardCharsets.UTF_8)))
                .isNull();
        assertThat(List.of(SyncRecords.Kind.values())).hasSize(3);
    }
}
