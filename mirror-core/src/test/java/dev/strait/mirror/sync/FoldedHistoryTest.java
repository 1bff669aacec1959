package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.time.ManualTime;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, "Scale": the mirror's offset map holds a bounded amount per partition whatever the source's shape (a
 * segment per transaction marker or compaction gap would otherwise be kept up to 20,000 times), and the translations
 * stay those of a map that keeps everything.
 */
class FoldedHistoryTest {
    private static final TopicPartition TARGET = new TopicPartition("dr.orders", 0);
    private static final TopicPartition A = new TopicPartition("orders", 0);
    private static final TopicPartition B = new TopicPartition("orders", 1);

    /** The offset map as the mirror's sync loop keeps it. */
    private static OffsetMap mirrorsMap() {
        OffsetMap map = new OffsetMap("src", OffsetMap.DEFAULT_MAX_SEGMENTS);
        new GroupOffsetSync(
                new GroupOffsetSync.Config(null, 1000, "mirror", java.util.regex.Pattern.compile(".*"), null),
                null,
                null,
                map,
                null,
                null,
                Time.SYSTEM,
                "writer",
                new MetricRegistry());
        return map;
    }

    @Test
    void aTransactionalSourceOf100000RecordsIsHeldInABoundedSpace() {
        // Given: 100,000 records, a commit marker after every 10 (a hole in the source offsets every 11)
        OffsetMap map = mirrorsMap();
        for (long t = 0; t < 100_000; t++) {
            map.acknowledged(A, t + t / 10, TARGET, t);
        }

        // Then: bounded, independently of the number of markers (10,000 segments before)
        assertBounded(map.existing(TARGET));
    }

    @Test
    void aCompactedSourceOf100000RecordsIsHeldInABoundedSpace() {
        // Given: 100,000 records of a compacted topic: a random gap after about one record in three
        OffsetMap map = mirrorsMap();
        Random random = new Random(1);
        long s = 0;
        for (long t = 0; t < 100_000; t++) {
            map.acknowledged(A, s, TARGET, t);
            s += 1 + (random.nextInt(3) == 0 ? 1 + random.nextInt(50) : 0);
        }

        // Then
        assertBounded(map.existing(TARGET));
    }

    /** At most 2 x 64 segments and 128 checkpoints, and a snapshot of a few KB, per partition. */
    private static void assertBounded(TargetHistory h) {
        HistorySnapshot snapshot = h.snapshot();
        int bytes = SyncRecords.encode(snapshot, "writer").length;
        assertThat(h.segments()).as("segments held").isLessThanOrEqualTo(2 * 64);
        assertThat(snapshot.size()).as("segments persisted").isLessThanOrEqualTo(2 * 64);
        assertThat(bytes).as("bytes of the snapshot written each round").isLessThanOrEqualTo(8 * 1024);
    }

    @Test
    void aGroupInsideTheFoldedRunIsTranslatedExactlyByReadingTheTarget() {
        // Given: 10,000 transactional records copied, folded to 8 exact segments and 4 checkpoints
        FakeTarget target = new FakeTarget();
        target.create("dr.orders", "id");
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.fold(4, 4);
        for (long i = 0; i < 10_000; i++) {
            long s = i + i / 10;
            map.acknowledged(A, s, TARGET, target.append(TARGET, A, s));
        }
        assertThat(map.existing(TARGET).checkpoints()).isBetween(1, 4);

        // When: a group that consumed up to target 4321 (source 4753) is translated
        Map<TopicPartition, Long> committed = Map.of(A, 4321L + 432);
        PartitionIndex index = map.existing(TARGET).index();
        Translation placeholder = index.translateOnly(A, committed.get(A));
        BelowResolver resolver = new BelowResolver(target).from(map);
        TranslationRound round = round(map, target);
        Translation t = resolver.resolve(round, round.translate(committed), committed, Map.of(TARGET, 0L))
                .get(TARGET);

        // Then: the map alone flags it (never past the exact offset); the read makes it exact; a second group at the
        // same place reads nothing more
        assertThat(placeholder.belowKnown()).isTrue();
        assertThat(placeholder.offset()).isLessThanOrEqualTo(4321);
        assertThat(t).isEqualTo(new Translation(TARGET, 4321, 0, false, 0));
        long read = target.recordsRead;
        resolver.resolve(round, round.translate(committed), committed, Map.of(TARGET, 0L));
        assertThat(target.recordsRead).isEqualTo(read);
    }

    @Test
    void pastTheReadsOfARoundAGroupIsPutBehindNeverAheadAndALaterRoundMakesItExact() {
        // Given: a folded transactional partition, and a target whose reads take 300 ms each
        ManualTime time = new ManualTime();
        FakeTarget target = new FakeTarget() {
            @Override
            public TargetReader.Range read(TopicPartition tp, long from, long to) {
                time.advance(300);
                return super.read(tp, from, to);
            }
        };
        target.create("dr.orders", "id");
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.fold(4, 64);
        for (long i = 0; i < 10_000; i++) {
            long s = i + i / 10;
            map.acknowledged(A, s, TARGET, target.append(TARGET, A, s));
        }
        // groups inside the folded run, each between other checkpoints
        long[] consumed = {1_111, 3_333, 5_555, 7_777};
        BelowResolver resolver = new BelowResolver(target, 3, time, 500);
        TranslationRound round = round(map, target);

        // When: a round may read for 500 ms (and at most 3 stretches)
        resolver.from(map);
        int exact = 0;
        for (long k : consumed) {
            Map<TopicPartition, Long> committed = Map.of(A, k + k / 10);
            Translation t = resolver.resolve(round, round.translate(committed), committed, Map.of(TARGET, 0L))
                    .get(TARGET);
            // Then: exact, or before the exact offset with read-again unknown (nothing skipped)
            if (t.exact()) {
                assertThat(t.offset()).isEqualTo(k);
                exact++;
            } else {
                assertThat(t.offset()).isLessThan(k);
                assertThat(t.readAgain()).isEqualTo(-1);
            }
        }
        // two reads started within 500 ms (the second ends at 600 ms), then none
        assertThat(exact).isEqualTo(2);

        // And: the next rounds read the rest and every group is exact
        for (int r = 0; r < 2; r++) {
            resolver.from(map);
            for (long k : consumed) {
                Map<TopicPartition, Long> committed = Map.of(A, k + k / 10);
                resolver.resolve(round, round.translate(committed), committed, Map.of(TARGET, 0L));
            }
        }
        for (long k : consumed) {
            Map<TopicPartition, Long> committed = Map.of(A, k + k / 10);
            assertThat(resolver.resolve(round, round.translate(committed), committed, Map.of(TARGET, 0L))
                            .get(TARGET))
                    .isEqualTo(new Translation(TARGET, k, 0, false, 0));
        }
        assertThat(resolver.reads()).isEqualTo(4);
    }

    @Test
    void theStretchesARoundNeedsAreReadSeveralPartitionsAtATime() {
        // Given: three folded transactional partitions, and a target that counts its fetches
        List<Map<TopicPartition, long[]>> fetches = new ArrayList<>();
        FakeTarget target = new FakeTarget() {
            @Override
            public Map<TopicPartition, TargetReader.Range> readEach(Map<TopicPartition, long[]> ranges) {
                fetches.add(ranges);
                return super.readEach(ranges);
            }
        };
        target.create("dr.orders", "id");
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.fold(4, 16);
        for (int p = 0; p < 3; p++) {
            TopicPartition tp = new TopicPartition("dr.orders", p);
            TopicPartition source = new TopicPartition("orders", p);
            for (long i = 0; i < 10_000; i++) {
                long s = i + i / 10;
                map.acknowledged(source, s, tp, target.append(tp, source, s));
            }
        }
        // four groups, each on the three partitions, at places inside the folded runs
        long[] consumed = {1_111, 3_333, 5_555, 7_777};
        List<Map<TopicPartition, Long>> committed = new ArrayList<>();
        for (long k : consumed) {
            Map<TopicPartition, Long> c = new HashMap<>();
            for (int p = 0; p < 3; p++) {
                c.put(new TopicPartition("orders", p), k + p + (k + p) / 10);
            }
            committed.add(c);
        }
        Map<TopicPartition, Long> starts = new HashMap<>();
        Map<TopicPartition, Long> ends = new HashMap<>();
        for (int p = 0; p < 3; p++) {
            starts.put(new TopicPartition("dr.orders", p), 0L);
            ends.put(new TopicPartition("dr.orders", p), 10_000L);
        }
        TranslationRound round = new TranslationRound(map, TopicRenamer.identity(), starts, ends, Map.of());
        List<Map<TopicPartition, Translation>> raw = new ArrayList<>();
        committed.forEach(c -> raw.add(round.translate(c)));
        BelowResolver resolver = new BelowResolver(target).from(map);

        // When: the round's stretches are read before the groups are resolved
        resolver.prefetch(round, raw, committed);
        long read = target.recordsRead;

        // Then: 12 stretches in 4 fetches of 3 partitions each; every group exact with no further read
        assertThat(fetches).hasSize(4).allMatch(f -> f.size() == 3);
        assertThat(resolver.reads()).isEqualTo(12);
        for (int g = 0; g < consumed.length; g++) {
            Map<TopicPartition, Translation> t = resolver.resolve(round, raw.get(g), committed.get(g), starts);
            for (int p = 0; p < 3; p++) {
                TopicPartition tp = new TopicPartition("dr.orders", p);
                assertThat(t.get(tp)).isEqualTo(new Translation(tp, consumed[g] + p, 0, false, 0));
            }
        }
        assertThat(target.recordsRead).isEqualTo(read);
    }

    @Test
    void aFoldedSnapshotRestoresTheSameTranslations() {
        FakeTarget target = new FakeTarget();
        target.create("dr.orders", "id");
        OffsetMap map = new OffsetMap("src", 1 << 20);
        map.fold(4, 8);
        for (long i = 0; i < 2_000; i++) {
            long s = 3 * i;
            map.acknowledged(A, s, TARGET, target.append(TARGET, A, s));
        }
        HistorySnapshot snapshot = map.existing(TARGET).snapshot();
        assertThat(snapshot.folded()).isNotNull();

        OffsetMap restored = new OffsetMap("src", 1 << 20);
        restored.merge(SyncRecords.decodeMap(SyncRecords.encode(snapshot, "w")).snapshot());

        for (long c = 0; c < 6_010; c += 7) {
            Map<TopicPartition, Long> committed = Map.of(A, c);
            assertThat(resolved(restored, target, committed)).isEqualTo(resolved(map, target, committed));
        }
        // merging what it holds already is nothing new to persist
        long version = restored.existing(TARGET).version();
        restored.merge(snapshot);
        assertThat(restored.existing(TARGET).version()).isEqualTo(version);
    }

    /**
     * Random histories of a mirror copying a transactional or compacted source (holes), crashing and re-copying from
     * its last commit, with records written on the target that are not copies and, rarely, a second source partition
     * (hash mode): after the upkeep of each round, every translation with a folded map (and reads of the target)
     * equals the translation with a map that keeps everything.
     */
    @Test
    void foldedMapsTranslateAsMapsThatKeepEverything() {
        long seeds = Long.getLong("sync.seeds", 300);
        long[] seen = new long[3];
        for (long seed = 0; seed < seeds; seed++) {
            checkSeed(seed, seen);
        }
        System.out.printf(
                "%d seeds: %d comparisons with a folded run, %d stretches read, %d folded runs cut back%n",
                seeds, seen[0], seen[1], seen[2]);
        // The histories did fold, translations did land inside folded runs, and some folded runs were cut back
        assertThat(seen[0]).as("comparisons with a folded run").isGreaterThan(seeds);
        assertThat(seen[1]).as("stretches read inside folded runs").isGreaterThan(seeds);
        assertThat(seen[2])
                .as("seeds whose folded run was cut back (a re-copy reached into it)")
                .isPositive();
    }

    /** {@code seen}: comparisons with a folded run, stretches read, seeds that unfolded. */
    private static void checkSeed(long seed, long[] seen) {
        int maxCheckpoints = 0;
        Random random = new Random(seed);
        FakeTarget target = new FakeTarget();
        target.create("dr.orders", "id");
        OffsetMap folded = new OffsetMap("src", 1 << 20);
        folded.fold(1 + random.nextInt(4), 2 + random.nextInt(4));
        OffsetMap whole = new OffsetMap("src", 1 << 20);
        long position = 0;
        long commit = 0;
        long positionB = 0;
        boolean hash = random.nextInt(10) == 0;
        List<Long> notCopies = new ArrayList<>();
        int steps = 200 + random.nextInt(800);
        for (int step = 0; step < steps; step++) {
            int action = random.nextInt(100);
            if (action < 2) {
                position = commit; // a crash: copied again from the last commit
            } else if (action < 10) {
                commit = position;
            } else if (action < 12) {
                notCopies.add(target.append(TARGET, null, 0)); // written on the target, not a copy
            } else if (action < 14 && !notCopies.isEmpty()) {
                // Loop prevention drops source records that are copies of records written on the target (a
                // failback's copies back): their originals, earlier on the target, stand for them.
                int k = 1 + random.nextInt(Math.min(4, notCopies.size()));
                for (int i = 0; i < k; i++) {
                    long original = notCopies.remove(0);
                    folded.original(A, position, TARGET, original);
                    whole.original(A, position, TARGET, original);
                    position++;
                }
            } else if (hash && action < 20) {
                long t = target.append(TARGET, B, positionB);
                folded.acknowledged(B, positionB, TARGET, t);
                whole.acknowledged(B, positionB, TARGET, t);
                positionB++;
            } else {
                if (random.nextInt(4) == 0) {
                    position += 1 + random.nextInt(5); // a marker, or compacted away
                }
                long t = target.append(TARGET, A, position);
                folded.acknowledged(A, position, TARGET, t);
                whole.acknowledged(A, position, TARGET, t);
                position++;
            }
            if (step % 97 == 96 || step == steps - 1) {
                upkeep(folded, target);
                upkeep(whole, target);
                OffsetMap restored = new OffsetMap("src", 1 << 20);
                restored.merge(SyncRecords.decodeMap(
                                SyncRecords.encode(folded.existing(TARGET).snapshot(), "w"))
                        .snapshot());
                upkeep(restored, target);
                TargetHistory h = folded.existing(TARGET);
                if (h.checkpoints() < maxCheckpoints) {
                    seen[2]++;
                }
                maxCheckpoints = Math.max(maxCheckpoints, h.checkpoints());
                for (int trial = 0; trial < 30; trial++) {
                    Map<TopicPartition, Long> committed = new HashMap<>();
                    committed.put(A, (long) random.nextInt((int) position + 3));
                    if (positionB > 0) {
                        committed.put(B, (long) random.nextInt((int) positionB + 2));
                    }
                    if (h.checkpoints() > 0) {
                        seen[0]++;
                    }
                    BelowResolver resolver = new BelowResolver(target);
                    assertThat(resolved(folded, resolver, target, committed))
                            .as("seed %d step %d committed %s", seed, step, committed)
                            .isEqualTo(resolved(whole, new BelowResolver(target), target, committed));
                    seen[1] += resolver.reads();
                    // and a process that learnt it from the persisted snapshot (a restart, another process)
                    assertThat(resolved(restored, target, committed))
                            .as("seed %d step %d committed %s, from the snapshot", seed, step, committed)
                            .isEqualTo(resolved(whole, target, committed));
                }
            }
        }
    }

    private static void upkeep(OffsetMap map, FakeTarget target) {
        MapUpkeep.run(
                map,
                target,
                MapUpkeep.knownEnds(map),
                Map.of(TARGET, 0L),
                Map.of(TARGET, target.end(TARGET)),
                1_000_000,
                null);
    }

    private static TranslationRound round(OffsetMap map, FakeTarget target) {
        return new TranslationRound(
                map, TopicRenamer.identity(), Map.of(TARGET, 0L), Map.of(TARGET, target.end(TARGET)), Map.of());
    }

    private static Map<TopicPartition, Translation> resolved(
            OffsetMap map, FakeTarget target, Map<TopicPartition, Long> committed) {
        return resolved(map, new BelowResolver(target), target, committed);
    }

    private static Map<TopicPartition, Translation> resolved(
            OffsetMap map, BelowResolver resolver, FakeTarget target, Map<TopicPartition, Long> committed) {
        TranslationRound round = round(map, target);
        return resolver.from(map).resolve(round, round.translate(committed), committed, Map.of());
    }
}
