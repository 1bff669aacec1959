package dev.strait.mirror.linked;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class GroupPlanTest {
    private static final TopicPartition P0 = new TopicPartition("orders", 0);
    private static final TopicPartition P1 = new TopicPartition("orders", 1);
    private static final TopicPartition P2 = new TopicPartition("orders", 2);

    @Test
    void offsetsAreCopiedVerbatimOnlyWhereTheTargetHoldsThemAlready() {
        GroupPlan.Writes w = GroupPlan.plan(Map.of(P0, 100L, P1, 250L, P2, 7L), Map.of(P0, 100L, P1, 200L), Map.of());

        assertThat(w.writes()).isEqualTo(Map.of(P0, 100L));
        assertThat(w.heldBack())
                .as("P1 is past the copy, P2 not on the target yet")
                .isEqualTo(2);
    }

    @Test
    void anOffsetAlreadyThereIsNotWrittenAgainAndAGroupMovedBackOnTheSourceMovesBackOnTheTarget() {
        GroupPlan.Writes w =
                GroupPlan.plan(Map.of(P0, 100L, P1, 50L), Map.of(P0, 500L, P1, 500L), Map.of(P0, 100L, P1, 400L));

        assertThat(w.writes()).isEqualTo(Map.of(P1, 50L));
        assertThat(w.heldBack()).isZero();
    }

    @Test
    void lagIsSourceEndMinusTargetEndPerPartition() {
        Map<TopicPartition, Long> lag = GroupPlan.lag(Map.of(P0, 1000L, P1, 300L, P2, 40L), Map.of(P0, 990L, P1, 300L));

        assertThat(lag).isEqualTo(Map.of(P0, 10L, P1, 0L, P2, 40L));
    }

    @Test
    void aTargetAheadOfItsSourceIsNotBehind() {
        assertThat(GroupPlan.lag(Map.of(P0, 10L), Map.of(P0, 12L))).isEqualTo(Map.of(P0, 0L));
    }
}
