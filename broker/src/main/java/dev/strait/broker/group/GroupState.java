package dev.strait.broker.group;

import java.util.EnumSet;
import java.util.Set;

/**
 * States of a classic-protocol group, with Kafka's names and legal transitions (see {@link ClassicGroup#transitionTo}).
 */
public enum GroupState {
    EMPTY("Empty"),
    PREPARING_REBALANCE("PreparingRebalance"),
    COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable"),
    DEAD("Dead");

    private final String kafkaName;

    GroupState(String kafkaName) {
        this.kafkaName = kafkaName;
    }

    /** The state name Kafka reports in ListGroups / DescribeGroups. */
    public String kafkaName() {
        return kafkaName;
    }

    /** The states this state may be entered from. */
    Set<GroupState> validPrevious() {
        switch (this) {
            case EMPTY:
                return EnumSet.of(PREPARING_REBALANCE);
            case PREPARING_REBALANCE:
                return EnumSet.of(EMPTY, STABLE, COMPLETING_REBALANCE);
            case COMPLETING_REBALANCE:
                return EnumSet.of(PREPARING_REBALANCE);
            case STABLE:
                return EnumSet.of(COMPLETING_REBALANCE);
            case DEAD:
                return EnumSet.of(EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD);
            default:
                throw new AssertionError(this);
        }
    }
}
