package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClassicGroupStateTest {

    private static ClassicGroup groupIn(GroupState state) {
        ClassicGroup group = new ClassicGroup("g");
        switch (state) {
            case EMPTY:
                break;
            case PREPARING_REBALANCE:
                group.transitionTo(GroupState.PREPARING_REBALANCE);
                break;
            case COMPLETING_REBALANCE:
                group.transitionTo(GroupState.PREPARING_REBALANCE);
                group.transitionTo(GroupState.COMPLETING_REBALANCE);
                break;
            case STABLE:
                group.transitionTo(GroupState.PREPARING_REBALANCE);
                group.transitionTo(GroupState.COMPLETING_REBALANCE);
                group.transitionTo(GroupState.STABLE);
                break;
            case DEAD:
                group.transitionTo(GroupState.DEAD);
                break;
            default:
                throw new AssertionError(state);
        }
        assertThat(group.state()).isEqualTo(state);
        return group;
    }

    @Test
    void newGroupIsEmpty() {
        assertThat(new ClassicGroup("g").state()).isEqualTo(GroupState.EMPTY);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "EMPTY,PREPARING_REBALANCE",
        "EMPTY,DEAD",
        "PREPARING_REBALANCE,COMPLETING_REBALANCE",
        "PREPARING_REBALANCE,EMPTY",
        "PREPARING_REBALANCE,DEAD",
        "COMPLETING_REBALANCE,STABLE",
        "COMPLETING_REBALANCE,PREPARING_REBALANCE",
        "COMPLETING_REBALANCE,DEAD",
        "STABLE,PREPARING_REBALANCE",
        "STABLE,DEAD",
        "DEAD,DEAD"
    })
    void legalTransitions(GroupState from, GroupState to) {
        ClassicGroup group = groupIn(from);
        group.transitionTo(to);
        assertThat(group.state()).isEqualTo(to);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "EMPTY,EMPTY",
        "EMPTY,COMPLETING_REBALANCE",
        "EMPTY,STABLE",
        "PREPARING_REBALANCE,STABLE",
        "PREPARING_REBALANCE,PREPARING_REBALANCE",
        "COMPLETING_REBALANCE,EMPTY",
        "COMPLETING_REBALANCE,COMPLETING_REBALANCE",
        "STABLE,EMPTY",
        "STABLE,COMPLETING_REBALANCE",
        "STABLE,STABLE",
        "DEAD,EMPTY",
        "DEAD,PREPARING_REBALANCE",
        "DEAD,COMPLETING_REBALANCE",
        "DEAD,STABLE"
    })
    void illegalTransitionsThrowNamingBothStates(GroupState from, GroupState to) {
        ClassicGroup group = groupIn(from);
        assertThatThrownBy(() -> group.transitionTo(to))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("from " + from)
                .hasMessageContaining("to " + to);
        assertThat(group.state()).isEqualTo(from);
    }
}
