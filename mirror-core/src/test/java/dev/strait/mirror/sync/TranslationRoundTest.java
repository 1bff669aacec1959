package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.TopicRenamer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

/**
 * Translation while the copy is still running: the group sync reads the target's end offsets, then indexes the
 * offset map that the producer's acknowledgements feed, and commits the translation on the target, where it
 * never moves back. Whatever the schedule, a group starting at the committed target offsets must read every
 * source record it had not consumed.
 */
class TranslationRoundTest {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;

    private static TopicPartition source(int p) {
        return new TopicPartition(TOPIC, p);
    }

    private static TopicPartition target(int p) {
        return new TopicPartition(TOPIC, p);
    }

    /** One copy on the target: which source record it holds. */
    private record Copy(int source, long offset) {}

    /** The target as it really is once the copy is done: per target partition, its copies in offset order. */
    private static final class Target {
        final List<List<Copy>> partitions = new ArrayList<>();
        final int[] written = new int[PARTITIONS];
        final int[] acked = new int[PARTITIONS];

        Target() {
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new ArrayList<>());
            }
        }

        /** The mirror hands one copy to the producer; it lands after the copies before it in its partition. */
        void hand(int targetPartition, Copy copy) {
            partitions.get(targetPartition).add(copy);
        }

        /** The broker appends the next {@code n} copies of a partition (they count in its end offset). */
        void write(int p, int n) {
            written[p] = Math.min(partitions.get(p).size(), written[p] + n);
        }

        /** The producer's I/O thread runs the callbacks of the next {@code n} written copies of a partition. */
        void acknowledge(OffsetMap map, int p, int n) {
            int to = Math.min(written[p], acked[p] + n);
            for (int i = acked[p]; i < to; i++) {
                Copy c = partitions.get(p).get(i);
                map.acknowledged(source(c.source()), c.offset(), target(p), i);
            }
            acked[p] = to;
        }

        Map<TopicPartition, Long> ends() {
            Map<TopicPartition, Long> out = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                out.put(target(p), (long) written[p]);
            }
            return out;
        }

        /** Source records at or after the group's committed offsets that a group starting at {@code at} misses. */
        long skipped(Map<TopicPartition, Long> at, long[] committed) {
            long n = 0;
            for (int p = 0; p < PARTITIONS; p++) {
                long x = at.getOrDefault(target(p), 0L);
                List<Copy> copies = partitions.get(p);
                for (int i = 0; i < Math.min(x, copies.size()); i++) {
                    if (copies.get(i).offset() >= committed[copies.get(i).source()]) {
                        n++;
                    }
                }
            }
            return n;
        }
    }

    /** Where hash mode sends record {@code n} (keys as the test producer writes them; every tenth has none). */
    private static int hashed(int sourcePartition, long n) {
        if (n % 10 == 9) {
            return sourcePartition % PARTITIONS;
        }
        byte[] key = ("k-" + n).getBytes(StandardCharsets.UTF_8);
        return Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
    }

    /** One sync round: ends first, then the map, then the commit that never moves back. */
    private static void round(
            OffsetMap map, Map<TopicPartition, Long> ends, long[] committed, Map<TopicPartition, Long> onTarget) {
        Map<TopicPartition, Long> c = new HashMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            c.put(source(p), committed[p]);
        }
        TranslationRound round = new TranslationRound(map, TopicRenamer.identity(), Map.of(), ends, Map.of());
        for (Translation t : round.translate(c).values()) {
            onTarget.merge(t.target(), t.offset(), Math::max);
        }
    }

    @Test
    void aRoundThatSeesCopiesInTheTargetsEndsBeforeTheirAcknowledgementsDoesNotCommitPastThem() {
        // Given: hash mode, 3 x 2,000 source records handed over partition by partition (the consumer's fetch
        // returns one partition's records after the other), spread over 3 target partitions by key hash; a group
        // that consumed 500 / 1,500 / 1,000 of them
        long[] committed = {500, 1_500, 1_000};
        Target target = new Target();
        for (int s = 0; s < PARTITIONS; s++) {
            for (long n = 0; n < 2_000; n++) {
                target.hand(hashed(s, n), new Copy(s, n));
            }
        }
        OffsetMap map = new OffsetMap("source", OffsetMap.DEFAULT_MAX_SEGMENTS);
        Map<TopicPartition, Long> onTarget = new HashMap<>();
        // When: the broker appended every copy, and the producer's I/O thread had run the callbacks of the first
        // 300 copies of target partition 0 only (all of source partition 0) when a round read the target's ends
        for (int p = 0; p < PARTITIONS; p++) {
            target.write(p, Integer.MAX_VALUE);
        }
        target.acknowledge(map, 0, 300);
        round(map, target.ends(), committed, onTarget);
        // and the rest of the acknowledgements arrive, and the next rounds see them all
        for (int p = 0; p < PARTITIONS; p++) {
            target.acknowledge(map, p, Integer.MAX_VALUE);
        }
        round(map, target.ends(), committed, onTarget);
        round(map, target.ends(), committed, onTarget);

        // Then: the group misses nothing it had not consumed
        assertThat(target.skipped(onTarget, committed))
                .as("unconsumed records below the committed target offsets %s", onTarget)
                .isZero();
        // and once everything is known, it is where the map's exact translation puts it
        Map<TopicPartition, Long> c = Map.of(source(0), 500L, source(1), 1_500L, source(2), 1_000L);
        TranslationRound last = new TranslationRound(map, TopicRenamer.identity(), Map.of(), target.ends(), Map.of());
        last.translate(c)
                .values()
                .forEach(t -> assertThat(onTarget.get(t.target()))
                        .as("%s", t.target())
                        .isEqualTo(t.offset()));
    }

    @Test
    void inPreserveModeCopiesWrittenButNotYetAcknowledgedAreNotSkipped() {
        // Given: one source partition, one target partition; the group consumed 500 of 2,000 records
        long[] committed = {500, 0, 0};
        Target target = new Target();
        for (long n = 0; n < 2_000; n++) {
            target.hand(0, new Copy(0, n));
        }
        OffsetMap map = new OffsetMap("source", OffsetMap.DEFAULT_MAX_SEGMENTS);
        Map<TopicPartition, Long> onTarget = new HashMap<>();
        // When: a round sees every copy written and none acknowledged yet, then one after the acknowledgements
        target.write(0, Integer.MAX_VALUE);
        round(map, Map.of(target(0), 2_000L), committed, onTarget);
        target.acknowledge(map, 0, Integer.MAX_VALUE);
        round(map, Map.of(target(0), 2_000L), committed, onTarget);

        // Then: the group resumes exactly at the copy of its next record
        assertThat(onTarget).isEqualTo(Map.of(target(0), 500L));
    }

    @Test
    void anEmptySourcePartitionGoesToTheEndOfWhatIsKnownToHoldNoCopy() {
        // Given: a target partition the map knows in full ([0, 40) read back, none of it a copy); 10 more records
        // written since, not known yet
        OffsetMap map = new OffsetMap("source", OffsetMap.DEFAULT_MAX_SEGMENTS);
        map.history(target(1)).merge(List.of(), 0, 40);
        Map<TopicPartition, Long> ends = Map.of(target(1), 50L);
        TranslationRound round = new TranslationRound(map, TopicRenamer.identity(), Map.of(), ends, Map.of());

        // Then: the group starts after what is known to hold no copy, before what is not known
        assertThat(round.translate(Map.of(source(1), 0L)))
                .containsEntry(target(1), new Translation(target(1), 40, 0, false, 0));
        // and on an empty target partition at its end, exactly
        TranslationRound empty = new TranslationRound(
                map, TopicRenamer.identity(), Map.of(target(2), 7L), Map.of(target(2), 7L), Map.of());
        assertThat(empty.translate(Map.of(source(2), 0L)))
                .containsEntry(target(2), new Translation(target(2), 7, 0, false, 0));
        // and where nothing is known, at the first record: read again, never skipped
        TranslationRound unknown = new TranslationRound(
                map, TopicRenamer.identity(), Map.of(target(2), 3L), Map.of(target(2), 9L), Map.of());
        assertThat(unknown.translate(Map.of(source(2), 0L)))
                .containsEntry(target(2), new Translation(target(2), 3, -1, false, 0));
    }

    @Test
    void inHashModeASourcePartitionWithCopiesOnlyBelowTheWindowIsLeftToTheTarget() {
        // Given: hash mode, a map that keeps 8 segments of target partition 0: source partition 2 was copied first
        // (offsets 0..18, even ones here) then went idle; partitions 0 and 1 kept being copied, interleaved, so the
        // map's window [15, 30) holds only their copies
        OffsetMap map = new OffsetMap("source", 8);
        for (int i = 0; i < 10; i++) {
            map.acknowledged(source(2), 2L * i, target(0), i);
        }
        for (int i = 0; i < 20; i++) {
            map.acknowledged(source(i % 2), 2L * i, target(0), 10 + i);
        }
        Map<TopicPartition, Long> ends = Map.of(target(0), 30L);
        TranslationRound round =
                new TranslationRound(map, TopicRenamer.identity(), Map.of(target(0), 0L), ends, Map.of(source(2), 19L));
        assertThat(round.index(target(0)).from()).isGreaterThan(0);
        assertThat(round.index(target(0)).sources()).containsExactlyInAnyOrder(source(0), source(1));

        // When: a group consumed all of partitions 0 and 1 and none of partition 2
        Map<TopicPartition, Translation> lagging =
                round.translate(Map.of(source(0), 100L, source(1), 100L, source(2), 0L));

        // Then: the window alone would put it past the copies of partition 2 at 0..9; the translation says it
        // must be resolved on the target instead
        assertThat(lagging.get(target(0)).belowKnown()).isTrue();
        assertThat(round.possiblyBelow(target(0), Map.of(source(0), 100L, source(1), 100L, source(2), 0L)))
                .containsExactly(source(2));
        // and a group that consumed partition 2 to its end has nothing there to skip: the window's answer stands
        Translation caughtUp = round.translate(Map.of(source(0), 100L, source(1), 100L, source(2), 19L))
                .get(target(0));
        assertThat(caughtUp.belowKnown()).isFalse();
        assertThat(caughtUp.offset()).isEqualTo(30);
    }

    @Test
    void inPreserveModeOtherSourcePartitionsAreNeverLookedForBelowTheWindow() {
        // Given: preserve mode, a map whose window of each target partition starts above its first record
        OffsetMap map = new OffsetMap("source", OffsetMap.DEFAULT_MAX_SEGMENTS);
        for (int p = 0; p < PARTITIONS; p++) {
            for (long n = 100; n < 200; n++) {
                map.acknowledged(source(p), n, target(p), n);
            }
        }
        TranslationRound round = new TranslationRound(map, TopicRenamer.identity(), Map.of(), Map.of(), Map.of());

        // Then: a group at 150 on each is exact, nothing left to the target
        Map<TopicPartition, Long> committed = Map.of(source(0), 150L, source(1), 150L, source(2), 150L);
        assertThat(round.translate(committed).values()).allSatisfy(t -> {
            assertThat(t.exact()).isTrue();
            assertThat(t.offset()).isEqualTo(150);
        });
        assertThat(round.possiblyBelow(target(0), committed)).isEmpty();
    }

    /**
     * Random schedules (replayable by seed): the mirror hands records of the source partitions over at different
     * speeds, the broker appends them, the callbacks run later, and rounds (target ends first, then the map, each
     * seeing acknowledgements that arrived in between) commit translations that never move back.
     */
    @Test
    void noScheduleOfCopiesAcknowledgementsAndRoundsSkipsAnUnconsumedRecord() {
        for (long seed = 1; seed <= 300; seed++) {
            Random random = new Random(seed);
            boolean hash = random.nextBoolean();
            int[] records = new int[PARTITIONS];
            long[] committed = new long[PARTITIONS];
            for (int s = 0; s < PARTITIONS; s++) {
                records[s] = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(300);
                committed[s] = random.nextInt(records[s] + 1);
            }
            Target target = new Target();
            OffsetMap map = new OffsetMap("source", OffsetMap.DEFAULT_MAX_SEGMENTS);
            Map<TopicPartition, Long> onTarget = new HashMap<>();
            long[] next = new long[PARTITIONS];
            boolean done = false;
            while (!done) {
                int step = random.nextInt(10);
                if (step < 4) {
                    int s = random.nextInt(PARTITIONS);
                    int n = 1 + random.nextInt(40);
                    for (int i = 0; i < n && next[s] < records[s]; i++, next[s]++) {
                        target.hand(hash ? hashed(s, next[s]) : s, new Copy(s, next[s]));
                    }
                } else if (step < 6) {
                    target.write(random.nextInt(PARTITIONS), 1 + random.nextInt(60));
                } else if (step < 8) {
                    target.acknowledge(map, random.nextInt(PARTITIONS), 1 + random.nextInt(60));
                } else {
                    Map<TopicPartition, Long> ends = target.ends();
                    // acknowledgements that arrive between the read of the ends and the look at the map
                    if (random.nextBoolean()) {
                        target.acknowledge(map, random.nextInt(PARTITIONS), 1 + random.nextInt(20));
                    }
                    round(map, ends, committed, onTarget);
                }
                done = true;
                for (int p = 0; p < PARTITIONS; p++) {
                    if (next[p] < records[p]
                            || target.acked[p] < target.partitions.get(p).size()) {
                        done = false;
                    }
                }
                if (done) {
                    round(map, target.ends(), committed, onTarget);
                }
            }
            assertThat(target.skipped(onTarget, committed))
                    .as(
                            "seed %d (%s mode): unconsumed records below the committed offsets %s",
                            seed, hash ? "hash" : "preserve", onTarget)
                    .isZero();
        }
    }
}
