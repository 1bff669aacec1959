package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.Tuple.Tuple2;
import org.apache.kafka.common.TopicPartition;

/**
 * The offset map against a naive oracle: over any history of copies of one source partition into one target
 * partition (source offsets going up with gaps, records that are not copies between them, re-copies after a mirror
 * crash, retention dropping the oldest offsets, a truncation forgetting everything), every committed source offset
 * translates as {@link PartitionIndex}'s rule says, computed here from the plain list of copies: never past what is
 * known, never below the last copy of a consumed record (R), never past the first copy, in the last run holding it, of
 * a record not consumed (L); when L &lt; R the translation is L and counts the copies read again.
 */
class OffsetMapPropertyTest {
    private static final TopicPartition SOURCE = new TopicPartition("orders", 0);
    private static final TopicPartition TARGET = new TopicPartition("dr.orders", 0);

    /**
     * One event: a copy (the source offset {@code step} past the last one copied, {@code gap} records that are not
     * copies before it on the target), a re-copy from {@code step} records back, retention dropping below {@code gap}
     * records from the start of what is held, or a truncation.
     */
    record Event(Kind kind, int step, int gap) {}

    enum Kind {
        COPY,
        RECOPY,
        RETENTION,
        TRUNCATE
    }

    /** One copy: target offset, source offset. */
    record Copy(long t, long s) {}

    @Property(tries = 300)
    void everyCommittedOffsetTranslatesAsTheRuleSays(@ForAll("histories") List<Event> history) {
        // Given
        OffsetMap map = new OffsetMap("east", OffsetMap.DEFAULT_MAX_SEGMENTS);
        List<Copy> copies = new ArrayList<>();
        long nextT = 0;
        long lastS = 3;
        long knownFrom = 0;

        // When
        for (Event e : history) {
            switch (e.kind()) {
                case RECOPY:
                case COPY:
                    long s = copies.isEmpty() ? lastS : lastS + e.step();
                    if (e.kind() == Kind.RECOPY && lastS - e.step() >= 0 && !copies.isEmpty()) {
                        s = lastS - e.step();
                    }
                    if (e.gap() > 0 && map.existing(TARGET) != null) {
                        map.existing(TARGET).merge(List.of(), nextT, nextT + e.gap());
                        nextT += e.gap();
                    }
                    map.acknowledged(SOURCE, s, TARGET, nextT);
                    copies.add(new Copy(nextT, s));
                    lastS = s;
                    nextT++;
                    break;
                case RETENTION:
                    long below = Math.min(nextT, knownFrom + e.gap());
                    map.history(TARGET).dropBelow(below);
                    copies.removeIf(c -> c.t() < below);
                    knownFrom = Math.max(knownFrom, below);
                    break;
                case TRUNCATE:
                    map.history(TARGET).reset(null);
                    copies.clear();
                    knownFrom = nextT;
                    break;
                default:
                    throw new AssertionError(e);
            }
        }

        // Then
        if (map.existing(TARGET) == null) {
            return;
        }
        PartitionIndex index = map.existing(TARGET).index();
        if (copies.isEmpty()) {
            assertThat(index.translate(Map.of(SOURCE, 5L))).isNull();
            return;
        }
        long minS = copies.stream().mapToLong(Copy::s).min().orElseThrow();
        long maxS = copies.stream().mapToLong(Copy::s).max().orElseThrow();
        assertThat(index.from()).isEqualTo(knownFrom);
        assertThat(index.to()).isEqualTo(nextT);
        assertThat(index.frontier(SOURCE)).isEqualTo(maxS + 1);
        assertThat(index.lowestSource(SOURCE)).isEqualTo(minS);
        for (long c = Math.max(0, minS - 2); c <= maxS + 2; c++) {
            Translation x = index.translate(Map.of(SOURCE, c));
            assertThat(index.translateOnly(SOURCE, c))
                    .as("translateOnly at C=%d", c)
                    .isEqualTo(x);
            check(copies, c, x, nextT, minS);
        }
    }

    /** The rule of {@link PartitionIndex}, computed from the list of copies. */
    private static void check(List<Copy> copies, long c, Translation x, long to, long minS) {
        long r = -1;
        for (Copy copy : copies) {
            if (copy.s() < c) {
                r = Math.max(r, copy.t() + 1);
            }
        }
        long l = Long.MAX_VALUE;
        List<Integer> runs = runs(copies);
        for (int i = 0; i < copies.size(); i++) {
            Copy copy = copies.get(i);
            if (copy.s() >= c && isFirstInLastRunHolding(copies, runs, i)) {
                l = Math.min(l, copy.t());
            }
        }
        String at = "C=" + c + " R=" + r + " L=" + l + " copies=" + copies;
        assertThat(x).as(at).isNotNull();
        assertThat(x.offset()).as("never past what is known: " + at).isLessThanOrEqualTo(to);
        assertThat(x.belowKnown()).as(at).isEqualTo(c < minS);
        if (r < 0) {
            assertThat(x.offset()).as(at).isEqualTo(l);
            assertThat(x.readAgain()).as(at).isZero();
        } else if (l == Long.MAX_VALUE) {
            assertThat(x.offset()).as(at).isEqualTo(r);
            assertThat(x.readAgain()).as(at).isZero();
        } else if (r <= l) {
            assertThat(x.offset()).as("never read again, never skip: " + at).isBetween(r, l);
            for (long t = r; t < x.offset(); t++) {
                long pos = t;
                assertThat(copies).as("moves over copies only: " + at).anyMatch(k -> k.t() == pos);
            }
            assertThat(x.readAgain()).as(at).isZero();
        } else {
            assertThat(x.offset())
                    .as("prefers reading again to skipping: " + at)
                    .isEqualTo(l);
            long start = l;
            long again =
                    copies.stream().filter(k -> k.t() >= start && k.s() < c).count();
            assertThat(x.readAgain()).as(at).isEqualTo(again);
        }
    }

    /** The run of each copy: a new run starts where the source offset goes down. */
    private static List<Integer> runs(List<Copy> copies) {
        List<Integer> runs = new ArrayList<>();
        int run = 0;
        for (int i = 0; i < copies.size(); i++) {
            if (i > 0 && copies.get(i).s() < copies.get(i - 1).s()) {
                run++;
            }
            runs.add(run);
        }
        return runs;
    }

    /** Copy i is the first copy of its source offset in the last run that holds that offset. */
    private static boolean isFirstInLastRunHolding(List<Copy> copies, List<Integer> runs, int i) {
        long s = copies.get(i).s();
        int lastRun = -1;
        int first = -1;
        for (int j = 0; j < copies.size(); j++) {
            if (copies.get(j).s() == s && runs.get(j) > lastRun) {
                lastRun = runs.get(j);
                first = j;
            }
        }
        return first == i;
    }

    @Provide
    Arbitrary<List<Event>> histories() {
        Arbitrary<Kind> kinds = Arbitraries.frequency(
                weighted(40, Kind.COPY),
                weighted(4, Kind.RECOPY),
                weighted(2, Kind.RETENTION),
                weighted(1, Kind.TRUNCATE));
        Arbitrary<Integer> steps =
                Arbitraries.frequency(weighted(6, 1), weighted(1, 2), weighted(1, 3), weighted(1, 12));
        Arbitrary<Integer> gaps = Arbitraries.frequency(weighted(8, 0), weighted(1, 1), weighted(1, 4));
        return Combinators.combine(kinds, steps, gaps)
                .as(Event::new)
                .list()
                .ofMinSize(1)
                .ofMaxSize(60);
    }

    private static <T> Tuple2<Integer, T> weighted(int weight, T value) {
        return Tuple.of(weight, value);
    }
}
