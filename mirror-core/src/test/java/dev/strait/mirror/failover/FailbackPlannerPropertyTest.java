package dev.strait.mirror.failover;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.GroupCheckpoint;
import dev.strait.mirror.sync.OffsetMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * Random failbacks of one partition (seeded; a failure names its seed): the target held {@code copied} copies of
 * source offsets 0.. from target offset {@code base}, the source took {@code divergent} records that never reached
 * it, the applications wrote {@code written} records on the target after the failover, and the copy back put them
 * after the divergent records. Wherever a group stood, it resumes on the source without skipping a record it had not
 * read, and reads again exactly the records the plan says.
 */
class FailbackPlannerPropertyTest {
    private static final TopicPartition T = new TopicPartition("dr.orders", 0);
    private static final TopicPartition S = new TopicPartition("orders", 0);
    private static final GroupFilter ALL = GroupFilter.of(".*", null, "--groups", "--groups.exclude");
    private static final int CASES = 500;

    private record Case(long base, long copied, long divergent, long written, long x, Long checkpoint) {
        long point() {
            return base + copied;
        }

        long sourceEnd() {
            return copied + divergent;
        }

        /** The first source record the group had not consumed before the failover (on the source or the target). */
        long firstUnconsumedOnSource() {
            long read = x <= point() ? x - base : copied;
            return checkpoint == null ? read : Math.max(read, checkpoint);
        }

        static Case random(Random r) {
            long base = r.nextInt(50);
            long copied = 1L + r.nextInt(200);
            long divergent = r.nextBoolean() ? 0 : r.nextInt(20);
            long written = r.nextInt(100);
            long x = base + r.nextLong(copied + written + 1);
            Long checkpoint = r.nextBoolean() ? null : (Long) r.nextLong(copied + divergent + 1);
            return new Case(base, copied, divergent, written, x, checkpoint);
        }
    }

    private static FailbackObservation observe(Case c) {
        OffsetMap forward = new OffsetMap("src", 1 << 20);
        for (long s = 0; s < c.copied(); s++) {
            forward.acknowledged(S, s, T, c.base() + s);
        }
        Map<String, FailoverMarker> markers = Map.of(T.topic(), new FailoverMarker(T.topic(), 1, Map.of(0, c.point())));
        Map<String, GroupCheckpoint> checkpoints = c.checkpoint() == null
                ? Map.of()
                : Map.of("g", new GroupCheckpoint("g", 1, Map.of(S, c.checkpoint()), Map.of(S, c.sourceEnd())));
        return new FailbackObservation(
                "src",
                "dr",
                1,
                FailbackPlanner.scope(markers, Set.of(T.topic()), Set.of(S.topic()), TopicRenamer.of("dr.", null)),
                markers,
                Map.of(T.topic(), 1),
                Map.of(T, c.base()),
                Map.of(T, c.point() + c.written()),
                ForwardCopies.of(forward),
                Map.of(S, c.sourceEnd()),
                Map.of(S, new SourceTail.Missing(c.divergent(), false, c.divergent() == 0 ? -1 : 1.0)),
                checkpoints,
                List.of(new FailbackObservation.Group("g", Map.of(T, c.x()), 0, 0)));
    }

    /** The copy back: target records point.. at the source's end, after the divergent records. */
    private static CopiesBack copiesBack(Case c) {
        OffsetMap reverse = new OffsetMap("dr", 1 << 20);
        for (long t = c.point(); t < c.point() + c.written(); t++) {
            reverse.acknowledged(T, t, S, c.sourceEnd() + (t - c.point()));
        }
        return CopiesBack.of(reverse);
    }

    @Test
    void aGroupNeverSkipsARecordItHadNotReadAndReadsAgainWhatThePlanSays() {
        for (int seed = 0; seed < CASES; seed++) {
            Case c = Case.random(new Random(seed));
            FailbackObservation o = observe(c);
            FailbackPlan dry = FailbackPlanner.plan(o, ALL);
            List<FailbackPlan.GroupBack> after = FailbackPlanner.groups(
                    o, FailbackPlanner.failoverPoints(o), copiesBack(c), FailbackPlanner.divergentEnds(dry.topics()));
            FailbackPlan.PartitionGroupBack p = after.get(0).partitions().get(0);
            String what = "seed " + seed + ": " + c + " -> " + p;

            assertThat(dry.topics().get(0).partitions().get(0).divergent())
                    .as(what)
                    .isEqualTo(c.divergent());
            assertThat(p.sourceOffset()).as(what).isGreaterThanOrEqualTo(0);
            // On the source: [0, copied) came before the failover, [copied, sourceEnd) is divergence, then the
            // copies of target records point.. in order.
            long firstUnreadCopy = c.sourceEnd() + Math.max(0, c.x() - c.point());
            long firstUnconsumed = c.firstUnconsumedOnSource();
            boolean unreadDivergence = firstUnconsumed < c.sourceEnd() && c.x() >= c.point();
            if (c.x() < c.point()) {
                // Before the failover point: the original of the first copy it had not read, exactly.
                assertThat(p.sourceOffset()).as(what).isEqualTo(c.x() - c.base());
                assertThat(p.readAgain()).as(what).isZero();
            } else if (unreadDivergence) {
                // Nothing it had not consumed lies below where it resumes ...
                assertThat(p.sourceOffset()).as(what).isLessThanOrEqualTo(firstUnconsumed);
                // ... and what it reads again is exactly the copies of what it read on the target.
                assertThat(p.sourceOffset()).as(what).isGreaterThanOrEqualTo(firstUnconsumed);
                assertThat(p.readAgain()).as(what).isEqualTo(c.x() - c.point());
            } else {
                // It had consumed every source record up to the copies: it resumes right after what it read.
                long expected = c.x() == c.point() ? Math.max(c.copied(), firstUnconsumed) : firstUnreadCopy;
                assertThat(p.sourceOffset()).as(what).isEqualTo(expected);
                assertThat(p.readAgain()).as(what).isZero();
            }
        }
    }
}
