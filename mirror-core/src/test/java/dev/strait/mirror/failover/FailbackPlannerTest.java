package dev.strait.mirror.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.GroupCheckpoint;
import dev.strait.mirror.sync.OffsetMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The decisions of a failback, from observations written by hand: no cluster. The world of most tests: the
 * source topic {@code orders} is mirrored to {@code dr.orders}; its offsets 0..99 reached the target at 0..99 before
 * the failover, 100..104 never did (divergence); the failover point is 100 and the applications wrote 30 records on
 * the target (100..129).
 */
class FailbackPlannerTest {
    private static final String TARGET_TOPIC = "dr.orders";
    private static final String SOURCE_TOPIC = "orders";
    private static final TopicPartition T0 = new TopicPartition(TARGET_TOPIC, 0);
    private static final TopicPartition S0 = new TopicPartition(SOURCE_TOPIC, 0);
    private static final GroupFilter APPS = GroupFilter.of("app-.*", null, "--groups", "--groups.exclude");

    /** An observation of one target topic, built by hand; every field may be changed before {@link #observe}. */
    private static final class World {
        final OffsetMap forward = new OffsetMap("src", 1 << 20);
        final Map<String, FailoverMarker> markers = new HashMap<>();
        Set<String> sourceTopics = Set.of(SOURCE_TOPIC);
        int partitions = 1;
        final Map<TopicPartition, Long> targetStarts = new HashMap<>();
        final Map<TopicPartition, Long> targetEnds = new HashMap<>();
        final Map<TopicPartition, Long> sourceEnds = new HashMap<>();
        final Map<TopicPartition, SourceTail.Missing> divergence = new HashMap<>();
        final Map<String, GroupCheckpoint> checkpoints = new HashMap<>();
        final List<FailbackObservation.Group> groups = new ArrayList<>();

        /** The world of the class comment. */
        static World standard() {
            World w = new World();
            w.copy(S0, 0, 99, T0, 0);
            w.markers.put(TARGET_TOPIC, new FailoverMarker(TARGET_TOPIC, 1_000, Map.of(0, 100L)));
            w.targetStarts.put(T0, 0L);
            w.targetEnds.put(T0, 130L);
            w.sourceEnds.put(S0, 105L);
            w.divergence.put(S0, new SourceTail.Missing(5, false, 12.5));
            return w;
        }

        /** The forward mirror copied source offsets {@code from..to} (inclusive) of {@code s} to {@code t} at {@code at}. */
        World copy(TopicPartition s, long from, long to, TopicPartition t, long at) {
            for (long o = from; o <= to; o++) {
                forward.acknowledged(s, o, t, at + (o - from));
            }
            return this;
        }

        World group(String name, long committed) {
            groups.add(new FailbackObservation.Group(name, Map.of(T0, committed), 0, 0));
            return this;
        }

        FailbackObservation observe() {
            Set<String> mapped = new HashSet<>();
            forward.histories().forEach(h -> mapped.add(h.target().topic()));
            Set<String> topics = FailbackPlanner.targetTopics(markers, mapped, "strait-sync", "src");
            FailbackPlanner.Scope scope =
                    FailbackPlanner.scope(markers, topics, sourceTopics, TopicRenamer.of("dr.", null));
            Map<String, Integer> counts = new HashMap<>();
            topics.forEach(t -> counts.put(t, partitions));
            return new FailbackObservation(
                    "src",
                    "dr",
                    42_000,
                    scope,
                    markers,
                    counts,
                    targetStarts,
                    targetEnds,
                    ForwardCopies.of(forward),
                    sourceEnds,
                    divergence,
                    checkpoints,
                    groups);
        }
    }

    /** Target records {@code from..to} (inclusive) of T0 copied back to S0 at source offset {@code at}. */
    private static OffsetMap copiedBack(OffsetMap reverse, long from, long to, long at) {
        for (long o = from; o <= to; o++) {
            reverse.acknowledged(T0, o, S0, at + (o - from));
        }
        return reverse;
    }

    private static FailbackPlan.PartitionGroupBack onlyPosition(FailbackPlan plan) {
        assertThat(plan.groups()).hasSize(1);
        assertThat(plan.groups().get(0).partitions()).hasSize(1);
        return plan.groups().get(0).partitions().get(0);
    }

    private static List<FailbackPlan.PartitionGroupBack> afterCopy(FailbackObservation o, CopiesBack copies) {
        FailbackPlan planned = FailbackPlanner.plan(o, APPS);
        return FailbackPlanner.groups(
                        o, FailbackPlanner.failoverPoints(o), copies, FailbackPlanner.divergentEnds(planned.topics()))
                .get(0)
                .partitions();
    }

    // --- which topics, and where they go

    @Test
    void nothingToFailBackIsRefusedNamingTheSyncTopicAndTheSourceCluster() {
        assertThatThrownBy(() -> FailbackPlanner.targetTopics(Map.of(), Set.of(), "strait-sync", "src"))
                .isInstanceOf(FailoverException.class)
                .hasMessage("nothing to fail back: the sync topic strait-sync holds no failover point and no offset "
                        + "map for source cluster src");
    }

    @Test
    void theTopicsWithAFailoverPointFailBackElseEveryTopicTheMirrorCopiedTo() {
        Map<String, FailoverMarker> markers = Map.of("dr.a", new FailoverMarker("dr.a", 1, Map.of(0, 5L)));

        assertThat(FailbackPlanner.targetTopics(markers, Set.of("dr.a", "dr.b"), "s", "src"))
                .containsExactly("dr.a");
        assertThat(FailbackPlanner.targetTopics(Map.of(), Set.of("dr.b", "dr.a"), "s", "src"))
                .containsExactly("dr.a", "dr.b");
    }

    @Test
    void eachTargetTopicGoesBackToTheSourceTopicTheRenameMapsToItElseToItsOwnName() {
        FailbackPlanner.Scope scope = FailbackPlanner.scope(
                Map.of("x", new FailoverMarker("x", 1, Map.of())),
                Set.of("dr.orders", "dr.gone"),
                Set.of("orders", "payments"),
                TopicRenamer.of("dr.", null));

        assertThat(scope.sourceTopicOf()).isEqualTo(Map.of("dr.orders", "orders", "dr.gone", "dr.gone"));
        assertThat(scope.warnings())
                .containsExactly("no source topic maps to dr.gone with the configured rename; copying back to a topic "
                        + "named dr.gone (created if missing)");
    }

    @Test
    void withoutAFailoverPointTheOperatorIsToldWhatCountsAsWrittenOnTheTarget() {
        FailbackPlanner.Scope scope =
                FailbackPlanner.scope(Map.of(), Set.of("dr.orders"), Set.of("orders"), TopicRenamer.of("dr.", null));

        assertThat(scope.warnings())
                .containsExactly("no failover point was recorded (failover --execute was not run): records after the "
                        + "last copy from the source count as written on the target");
    }

    // --- the failover point and the copy back

    @Test
    void theMapIsLearntUpToTheFailoverPointAndNeverPastATruncatedTargetsEnd() {
        TopicPartition t1 = new TopicPartition(TARGET_TOPIC, 1);
        TopicPartition t2 = new TopicPartition(TARGET_TOPIC, 2);
        Map<String, FailoverMarker> markers =
                Map.of(TARGET_TOPIC, new FailoverMarker(TARGET_TOPIC, 1, Map.of(0, 100L, 1, 100L)));

        Map<TopicPartition, Long> readTo =
                FailbackPlanner.readTo(Set.of(T0, t1, t2), markers, Map.of(T0, 130L, t1, 60L, t2, 70L));

        // t1 was truncated below its failover point; t2 has no point of its own: its whole log is learnt
        assertThat(readTo).isEqualTo(Map.of(T0, 100L, t1, 60L, t2, 70L));
    }

    @Test
    void theFailoverPointIsTheRecordedOneElseAfterTheLastCopyElseThePartitionsStart() {
        World w = World.standard();
        TopicPartition t1 = new TopicPartition(TARGET_TOPIC, 1);
        TopicPartition t2 = new TopicPartition(TARGET_TOPIC, 2);
        w.partitions = 3;
        w.copy(new TopicPartition(SOURCE_TOPIC, 1), 0, 49, t1, 10);
        w.targetStarts.putAll(Map.of(t1, 0L, t2, 7L));
        w.targetEnds.putAll(Map.of(t1, 80L, t2, 20L));

        assertThat(FailbackPlanner.failoverPoints(w.observe())).isEqualTo(Map.of(T0, 100L, t1, 60L, t2, 7L));
    }

    @Test
    void aPartitionNothingWasWrittenOnHasNothingToCopyBack() {
        World w = World.standard();
        w.targetEnds.put(T0, 100L);
        w.sourceEnds.put(S0, 100L);
        w.divergence.remove(S0);

        FailbackPlan plan = FailbackPlanner.plan(w.observe(), APPS);

        assertThat(plan.topics()).hasSize(1);
        FailbackPlan.TopicBack t = plan.topics().get(0);
        assertThat(t.sourceTopic()).isEqualTo(SOURCE_TOPIC);
        assertThat(t.failoverTimeMs()).isEqualTo(1_000);
        assertThat(t.partitions())
                .containsExactly(new FailbackPlan.PartitionBack(0, 100, 100, -1, -1, -1, 100, 100, 0, -1));
        assertThat(plan.timeMs()).isEqualTo(42_000);
        assertThat(plan.sourceCluster()).isEqualTo("src");
        assertThat(plan.targetCluster()).isEqualTo("dr");
    }

    @Test
    void theRecordsWrittenOnTheTargetGoBackAndTheSourceRecordsThatNeverReachedItAreNamed() {
        FailbackPlan plan = FailbackPlanner.plan(World.standard().observe(), APPS);

        assertThat(plan.topics().get(0).partitions())
                .containsExactly(new FailbackPlan.PartitionBack(0, 100, 130, -1, -1, -1, 100, 105, 5, 12.5));
    }

    @Test
    void aTruncatedTargetPartitionAndAMissingSourcePartitionAreReportedAsTheyAre() {
        World w = World.standard();
        // the target lost records above 60 (recreated or truncated); the source topic's partition is gone
        w.targetEnds.put(T0, 60L);
        w.sourceEnds.clear();
        w.divergence.clear();

        FailbackPlan.PartitionBack p = FailbackPlanner.plan(w.observe(), APPS)
                .topics()
                .get(0)
                .partitions()
                .get(0);

        assertThat(p.failoverOffset()).isEqualTo(100);
        assertThat(p.targetEnd()).isEqualTo(60);
        assertThat(p.sourceEnd()).isZero();
        assertThat(p.divergent()).isZero();
        assertThat(p.divergentAgeSeconds()).isEqualTo(-1);
    }

    @Test
    void aDryRunCopiesNothingAndMovesNoGroup() {
        FailbackPlan plan =
                FailbackPlanner.plan(World.standard().group("app-1", 110).observe(), APPS);

        assertThat(plan.topics().get(0).partitions().get(0).copied()).isEqualTo(-1);
        assertThat(plan.groups().get(0).outcome()).isNull();
    }

    // --- where each group resumes

    @Test
    void aGroupBehindTheFailoverPointResumesAtTheOriginalOfTheFirstCopyItHadNotRead() {
        FailbackPlan plan =
                FailbackPlanner.plan(World.standard().group("app-1", 40).observe(), APPS);

        assertThat(onlyPosition(plan))
                .isEqualTo(new FailbackPlan.PartitionGroupBack(T0, S0, 40, 40, "from the failover copy", 0));
    }

    @Test
    void aGroupAtTheFailoverPointResumesAfterTheCopiesOrWhereItHadReadOnTheSource() {
        World w = World.standard().group("app-1", 100).group("app-2", 100);
        // app-2 had read two of the divergent records on the source before the failover
        w.checkpoints.put("app-2", new GroupCheckpoint("app-2", 1, Map.of(S0, 102L), Map.of(S0, 105L)));

        FailbackPlan plan = FailbackPlanner.plan(w.observe(), APPS);

        assertThat(plan.groups().get(0).partitions())
                .containsExactly(new FailbackPlan.PartitionGroupBack(T0, S0, 100, 100, "after the failover copy", 0));
        assertThat(plan.groups().get(1).partitions())
                .containsExactly(new FailbackPlan.PartitionGroupBack(T0, S0, 100, 102, "after the failover copy", 0));
    }

    @Test
    void aGroupAheadOfTheFailoverPointWaitsForTheCopiesWhenNoDivergenceComesFirst() {
        World w = World.standard().group("app-1", 110);
        w.sourceEnds.put(S0, 100L);
        w.divergence.remove(S0);

        assertThat(onlyPosition(FailbackPlanner.plan(w.observe(), APPS)))
                .isEqualTo(new FailbackPlan.PartitionGroupBack(T0, S0, 110, -1, "after the copies written back", 0));
    }

    @Test
    void aGroupAheadOfTheFailoverPointResumesAtDivergentRecordsItNeverReadAndReadsAgainWhatItReadOnTheTarget() {
        FailbackPlan plan =
                FailbackPlanner.plan(World.standard().group("app-1", 110).observe(), APPS);

        assertThat(onlyPosition(plan))
                .isEqualTo(new FailbackPlan.PartitionGroupBack(
                        T0, S0, 110, 100, "at the divergent records it never read", 10));
    }

    @Test
    void aGroupThatHadReadTheDivergentRecordsOnTheSourceDoesNotReadThemAgain() {
        World w = World.standard().group("app-1", 110);
        w.checkpoints.put("app-1", new GroupCheckpoint("app-1", 1, Map.of(S0, 105L), Map.of(S0, 105L)));

        assertThat(onlyPosition(FailbackPlanner.plan(w.observe(), APPS)).how())
                .isEqualTo("after the copies written back");
    }

    @Test
    void afterTheCopyAGroupAheadResumesExactlyAfterTheCopiesOfWhatItRead() {
        World w = World.standard().group("app-1", 110);
        w.checkpoints.put("app-1", new GroupCheckpoint("app-1", 1, Map.of(S0, 105L), Map.of(S0, 105L)));
        CopiesBack copies = CopiesBack.of(copiedBack(new OffsetMap("dr", 1 << 20), 100, 129, 105));

        assertThat(afterCopy(w.observe(), copies))
                .containsExactly(
                        new FailbackPlan.PartitionGroupBack(T0, S0, 110, 115, "after the copies written back", 0));
    }

    @Test
    void afterTheCopyAGroupThatNeverReadTheDivergentRecordsReadsTheCopiesOfWhatItReadAgain() {
        World w = World.standard().group("app-1", 110);
        CopiesBack copies = CopiesBack.of(copiedBack(new OffsetMap("dr", 1 << 20), 100, 129, 105));

        assertThat(afterCopy(w.observe(), copies))
                .containsExactly(new FailbackPlan.PartitionGroupBack(
                        T0, S0, 110, 100, "at the divergent records it never read", 10));
    }

    @Test
    void theCopiesOfAnEarlierFailbackAreNotReadAgain() {
        // The source holds 100..104 (divergent), 105..109 (copies of target 20..24 from an earlier failback, which
        // the group read long ago) and then this failback's copies of 100..129 at 110..139.
        World w = World.standard().group("app-1", 110);
        w.sourceEnds.put(S0, 110L);
        OffsetMap reverse = copiedBack(new OffsetMap("dr", 1 << 20), 20, 24, 105);
        copiedBack(reverse, 100, 129, 110);

        assertThat(afterCopy(w.observe(), CopiesBack.of(reverse)))
                .containsExactly(new FailbackPlan.PartitionGroupBack(
                        T0, S0, 110, 100, "at the divergent records it never read", 10));
    }

    @Test
    void aGroupsOffsetsOnTopicsThatDoNotFailBackAreLeftAlone() {
        World w = World.standard();
        w.groups.add(
                new FailbackObservation.Group("app-1", Map.of(new TopicPartition("dr.other", 0), 5L, T0, 40L), 2, 1));

        FailbackPlan.GroupBack g =
                FailbackPlanner.plan(w.observe(), APPS).groups().get(0);

        assertThat(g.partitions())
                .extracting(FailbackPlan.PartitionGroupBack::target)
                .containsExactly(T0);
        assertThat(g.activeOnTarget()).isEqualTo(2);
        assertThat(g.activeOnSource()).isEqualTo(1);
    }

    @Test
    void inHashModeAGroupResumesOnEverySourcePartitionFeedingTheTargetPartition() {
        World w = new World();
        TopicPartition s1 = new TopicPartition(SOURCE_TOPIC, 1);
        // target 0..9 from orders-0 0..9, 10..19 from orders-1 0..9
        w.copy(S0, 0, 9, T0, 0).copy(s1, 0, 9, T0, 10);
        w.markers.put(TARGET_TOPIC, new FailoverMarker(TARGET_TOPIC, 1, Map.of(0, 20L)));
        w.targetStarts.put(T0, 0L);
        w.targetEnds.put(T0, 20L);
        w.group("app-1", 5);

        assertThat(FailbackPlanner.plan(w.observe(), APPS).groups().get(0).partitions())
                .containsExactly(
                        new FailbackPlan.PartitionGroupBack(T0, S0, 5, 5, "from the failover copy", 0),
                        new FailbackPlan.PartitionGroupBack(T0, s1, 5, 0, "from the failover copy", 0));
    }

    @Test
    void noMatchingGroupWarnsThatAMissingDescribeGrantLooksLikeNoGroup() {
        FailbackPlan plan = FailbackPlanner.plan(World.standard().observe(), APPS);

        assertThat(plan.groups()).isEmpty();
        assertThat(plan.warnings())
                .containsExactly("no consumer group on the target matches --groups app-.*, so no group moves: the "
                        + "target lists only the groups the principal of the target. settings may DESCRIBE; grant it "
                        + "(kafka-acls --bootstrap-server <target> --add --allow-principal User:<failback> "
                        + "--operation Describe --group <group>)");
    }

    // --- execute: refusals, moves, what was copied

    @Test
    void executeIsRefusedWhileAGroupHasMembersOnTheTargetUnlessForced() {
        FailbackPlan plan = new FailbackPlan(
                "src",
                "dr",
                1,
                List.of(),
                List.of(
                        new FailbackPlan.GroupBack("app-1", 0, 0, List.of(), null),
                        new FailbackPlan.GroupBack("app-2", 3, 0, List.of(), null)),
                List.of());

        assertThat(FailbackPlanner.refusal(plan, false))
                .contains("group app-2 still has 3 members on the target: stop the applications on the target before "
                        + "failing back (or --force)");
        assertThat(FailbackPlanner.refusal(plan, true)).isEmpty();
    }

    @Test
    void aGroupWithNoPositionOnTheSourceHasNothingToMove() {
        FailbackPlan.GroupBack g = new FailbackPlan.GroupBack(
                "app-1",
                0,
                2,
                List.of(new FailbackPlan.PartitionGroupBack(T0, S0, 110, -1, "after the copies written back", 0)),
                null);

        assertThat(FailbackPlanner.move(g, false))
                .isEqualTo(new FailbackPlanner.Move(Map.of(), false, "nothing to move"));
    }

    @Test
    void aGroupWithMembersOnTheSourceIsRefusedUnlessForcedThenTheyAreRemovedFirst() {
        FailbackPlan.GroupBack g = new FailbackPlan.GroupBack(
                "app-1", 0, 2, List.of(new FailbackPlan.PartitionGroupBack(T0, S0, 40, 40, "x", 0)), null);

        assertThat(FailbackPlanner.move(g, false))
                .isEqualTo(new FailbackPlanner.Move(
                        Map.of(S0, 40L), false, "refused: 2 members are active on the source (--force removes them)"));
        assertThat(FailbackPlanner.move(g, true)).isEqualTo(new FailbackPlanner.Move(Map.of(S0, 40L), true, null));
    }

    @Test
    void whenSeveralTargetPartitionsPointIntoOneSourcePartitionTheLowestPositionIsWritten() {
        TopicPartition t1 = new TopicPartition(TARGET_TOPIC, 1);
        FailbackPlan.GroupBack g = new FailbackPlan.GroupBack(
                "app-1",
                0,
                0,
                List.of(
                        new FailbackPlan.PartitionGroupBack(T0, S0, 40, 70, "x", 0),
                        new FailbackPlan.PartitionGroupBack(t1, S0, 9, 30, "x", 0)),
                null);

        assertThat(FailbackPlanner.move(g, false).offsets()).isEqualTo(Map.of(S0, 30L));
    }

    @Test
    void theFailoverPointsStayWhileAGroupDidNotMove() {
        List<FailbackPlan.GroupBack> moved = List.of(
                new FailbackPlan.GroupBack("app-1", 0, 0, List.of(), "moved"),
                new FailbackPlan.GroupBack("app-2", 0, 0, List.of(), "nothing to move"));
        List<FailbackPlan.GroupBack> notAll = new ArrayList<>(moved);
        notAll.add(new FailbackPlan.GroupBack("app-3", 0, 1, List.of(), "refused: 1 members are active"));
        notAll.add(new FailbackPlan.GroupBack("app-4", 0, 0, List.of(), "failed: denied"));

        assertThat(FailbackPlanner.keepFailoverPoints(moved)).isEmpty();
        assertThat(FailbackPlanner.keepFailoverPoints(notAll))
                .contains("the failover points are kept because app-3, app-4 did not move: run failback --execute "
                        + "again to move them (it copies only what is not on the source yet)");
    }

    @Test
    void recordsWrittenOnTheTargetWhileTheCopyRanAreNamed() {
        TopicPartition t1 = new TopicPartition(TARGET_TOPIC, 1);

        assertThat(FailbackPlanner.writtenDuringCopy(Map.of(T0, 130L, t1, 50L), Map.of(T0, 130L, t1, 53L)))
                .containsExactly("dr.orders-1 took 3 records on the target during the failback; they were not "
                        + "copied back: stop the producers on the target and run failback again");
    }

    @Test
    void onlyThisFailoversCopiesCountAsCopiedBack() {
        FailbackPlan planned = FailbackPlanner.plan(World.standard().observe(), APPS);
        // an earlier failback copied target 20..24 to source 90..94; this one 100..129 to 105..134
        OffsetMap reverse = copiedBack(new OffsetMap("dr", 1 << 20), 20, 24, 90);
        copiedBack(reverse, 100, 129, 105);

        List<FailbackPlan.TopicBack> done = FailbackPlanner.copiedBack(planned.topics(), CopiesBack.of(reverse));

        assertThat(done.get(0).partitions())
                .containsExactly(new FailbackPlan.PartitionBack(0, 100, 130, 30, 105, 135, 100, 105, 5, 12.5));
        assertThat(FailbackPlanner.copiedBack(planned.topics(), CopiesBack.NONE)
                        .get(0)
                        .partitions()
                        .get(0))
                .extracting(FailbackPlan.PartitionBack::copied, FailbackPlan.PartitionBack::copiedFrom)
                .containsExactly(0L, -1L);
    }

    @Test
    void aReRunGoesOnAfterTheCopiesAlreadyOnTheSource() {
        TopicPartition t1 = new TopicPartition(TARGET_TOPIC, 1);
        // target 100..114 of partition 0 were copied back by an earlier run; partition 1's source partition is gone
        CopiesBack copies = CopiesBack.of(copiedBack(new OffsetMap("dr", 1 << 20), 100, 114, 105));

        Map<TopicPartition, Long> resume = FailbackPlanner.resumePoints(
                Map.of(T0, 100L, t1, 40L), Map.of(TARGET_TOPIC, SOURCE_TOPIC), Set.of(S0), copies);

        assertThat(resume).isEqualTo(Map.of(T0, 115L, t1, 40L));
        assertThat(FailbackPlanner.resumePoints(
                        Map.of(T0, 100L), Map.of(TARGET_TOPIC, SOURCE_TOPIC), Set.of(S0), CopiesBack.NONE))
                .isEqualTo(Map.of(T0, 100L));
    }

    @Test
    void theCopyIsDoneWhenItReachedEveryPartitionsEndAsOfItsStart() {
        TopicPartition t1 = new TopicPartition(TARGET_TOPIC, 1);
        CopyRange range = new CopyRange(Map.of(T0, 100L, t1, 40L), Map.of(T0, 130L, t1, 40L));

        assertThat(range.total()).isEqualTo(30);
        assertThat(range.remaining(Map.of(T0, 120L))).isEqualTo(10);
        // t1 had nothing to copy, but the copy has no position on it yet
        assertThat(range.done(Map.of(T0, 130L))).isFalse();
        assertThat(range.done(Map.of(T0, 130L, t1, 40L))).isTrue();
        assertThat(range.remaining(Map.of(T0, 140L, t1, 40L))).isZero();
    }

    @Test
    void thePlanIsTheSameForTheSameObservation() {
        FailbackObservation o =
                World.standard().group("app-1", 110).group("app-2", 40).observe();

        assertThat(FailbackPlanner.plan(o, APPS)).isEqualTo(FailbackPlanner.plan(o, APPS));
    }
}
