package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Two mirror processes of one source cluster exchange offset map snapshots through the sync topic (issue 21,
 * D9): each persists what it changed, merges the other's, and neither writes back what it only merged.
 */
class SnapshotExchangeTest {
    private static final TopicPartition T0 = new TopicPartition("dr.orders", 0);
    private static final TopicPartition T1 = new TopicPartition("dr.orders", 1);
    private static final TopicPartition A = new TopicPartition("orders", 0);
    private static final TopicPartition B = new TopicPartition("orders", 1);

    /** The sync topic: every record written, in order (a compacted topic keeps the latest per key). */
    static final class FakeSyncTopic {
        final List<String> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        long bytes;

        void write(byte[] key, byte[] value) {
            keys.add(new String(key, java.nio.charset.StandardCharsets.UTF_8));
            values.add(value);
            bytes += key.length + value.length;
        }
    }

    /** One process's side of the exchange, as GroupOffsetSync does it: read what is new, merge, persist changes. */
    static final class Process {
        final String writer;
        final OffsetMap map = new OffsetMap("src", 20_000);

        Process folding() {
            map.fold(OffsetMap.FOLD_WINDOW, OffsetMap.FOLD_CHECKPOINTS);
            return this;
        }

        final Map<TopicPartition, Long> persisted = new HashMap<>();
        int readUpTo;
        boolean loaded;

        Process(String writer) {
            this.writer = writer;
        }

        int round(FakeSyncTopic topic) {
            int end = topic.values.size();
            for (int i = readUpTo; i < end; i++) {
                SyncRecords.MapValue v = SyncRecords.decodeMap(topic.values.get(i));
                if (v != null && (!loaded || !v.writer().equals(writer))) {
                    map.merge(v.snapshot());
                }
            }
            readUpTo = end;
            loaded = true;
            int written = 0;
            for (TargetHistory h : map.histories()) {
                long version = h.version();
                if (persisted.getOrDefault(h.target(), -1L) == version) {
                    continue;
                }
                topic.write(SyncRecords.mapKey("src", h.target()), SyncRecords.encode(h.snapshot(), writer));
                persisted.put(h.target(), version);
                written++;
            }
            return written;
        }
    }

    @Test
    void snapshotsThatAddNothingAreNotWrittenBackRoundAfterRound() {
        // Given: two processes, each copying one source partition into its own target partition (1,000 copies each,
        // in 100 segments: restarts and dropped records)
        FakeSyncTopic topic = new FakeSyncTopic();
        Process p1 = new Process("p1");
        Process p2 = new Process("p2");
        for (long s = 0; s < 1000; s++) {
            p1.map.acknowledged(A, s + 10 * (s / 10), T0, s);
            p2.map.acknowledged(B, s + 10 * (s / 10), T1, s);
        }

        // When: 10 rounds each, nothing new acknowledged after the first
        List<Long> bytesPerRound = new ArrayList<>();
        int writes = 0;
        for (int round = 0; round < 10; round++) {
            long before = topic.bytes;
            writes += p1.round(topic);
            writes += p2.round(topic);
            bytesPerRound.add(topic.bytes - before);
        }
        System.out.println(
                "SnapshotExchangeTest: bytes written to the sync topic per round, 2 processes: " + bytesPerRound);

        // Then: each process wrote its own partition once; the other's snapshot, merged, was never written back
        assertThat(writes)
                .as("snapshots written in 10 rounds; per round, bytes: " + bytesPerRound)
                .isEqualTo(2);
        assertThat(topic.keys).containsExactlyInAnyOrder("map|src|dr.orders|0", "map|src|dr.orders|1");
        // and each knows both partitions
        assertThat(p1.map.existing(T1).index().translate(Map.of(B, 500L)).offset())
                .isEqualTo(250);
        assertThat(p2.map.existing(T0).index().translate(Map.of(A, 500L)).offset())
                .isEqualTo(250);
    }

    @Test
    void eachProcessWritesOnlyThePartitionsItLearntSomethingOfEachRound() {
        // Given: two processes each copying into its own target partition (preserve mode), 1,000 copies a round
        FakeSyncTopic topic = new FakeSyncTopic();
        Process p1 = new Process("p1");
        Process p2 = new Process("p2");
        List<Long> bytesPerRound = new ArrayList<>();
        List<Integer> writesPerRound = new ArrayList<>();

        // When: 10 rounds
        for (int round = 0; round < 10; round++) {
            for (long i = 0; i < 1000; i++) {
                long s = round * 1000L + i;
                // a hole in the source offsets every 10 records (dropped on purpose): one segment per 10 copies
                p1.map.acknowledged(A, s + s / 10, T0, s);
                p2.map.acknowledged(B, s + s / 10, T1, s);
            }
            long before = topic.bytes;
            writesPerRound.add(p1.round(topic) + p2.round(topic));
            bytesPerRound.add(topic.bytes - before);
        }
        System.out.println(
                "SnapshotExchangeTest: 2 processes, 1,000 new copies each per round: bytes written per round "
                        + bytesPerRound + ", snapshots " + writesPerRound);

        // Then: two snapshots a round, each process its own partition (not the other's, merged, as well)
        assertThat(writesPerRound)
                .as("snapshots per round; bytes " + bytesPerRound)
                .containsOnly(2);
    }

    @Test
    void foldedMapsAreNotWrittenBackEither() {
        // Given: the same two processes with the mirror's folded maps; 100 segments a round per partition, so the
        // oldest are folded from the second round on, and each process folds its own and the other's partition
        FakeSyncTopic topic = new FakeSyncTopic();
        Process p1 = new Process("p1").folding();
        Process p2 = new Process("p2").folding();
        List<Long> bytesPerRound = new ArrayList<>();
        List<Integer> writesPerRound = new ArrayList<>();

        // When: 20 rounds of 1,000 new copies each, then 3 with nothing new
        for (int round = 0; round < 23; round++) {
            for (long i = 0; round < 20 && i < 1000; i++) {
                long s = round * 1000L + i;
                p1.map.acknowledged(A, s + s / 10, T0, s);
                p2.map.acknowledged(B, s + s / 10, T1, s);
            }
            long before = topic.bytes;
            writesPerRound.add(p1.round(topic) + p2.round(topic));
            bytesPerRound.add(topic.bytes - before);
        }
        System.out.println("SnapshotExchangeTest: folded maps, bytes written per round " + bytesPerRound
                + ", snapshots " + writesPerRound);

        // Then: each process writes its own partition while it learns, nothing once idle; the snapshots stay small
        assertThat(writesPerRound.subList(0, 20))
                .as("snapshots per round; bytes " + bytesPerRound)
                .containsOnly(2);
        assertThat(writesPerRound.subList(20, 23)).as("idle rounds").containsOnly(0);
        assertThat(bytesPerRound).allMatch(b -> b < 2 * 8 * 1024);
        // and each knows the other's partition: its recent copies exactly, its oldest as a folded run
        assertThat(p1.map.existing(T1).index().translate(Map.of(B, 21_990L)).offset())
                .isEqualTo(19_991);
        assertThat(p1.map.existing(T1).checkpoints()).isPositive();
        assertThat(p2.map.existing(T0).index().foldedBracket(A, 110L)).isNotNull();
    }
}
