package dev.strait.broker.txn;

import static dev.strait.broker.txn.TransactionState.COMPLETE_ABORT;
import static dev.strait.broker.txn.TransactionState.COMPLETE_COMMIT;
import static dev.strait.broker.txn.TransactionState.DEAD;
import static dev.strait.broker.txn.TransactionState.EMPTY;
import static dev.strait.broker.txn.TransactionState.ONGOING;
import static dev.strait.broker.txn.TransactionState.PREPARE_ABORT;
import static dev.strait.broker.txn.TransactionState.PREPARE_COMMIT;
import static dev.strait.broker.txn.TransactionState.PREPARE_EPOCH_FENCE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every pair of states against Kafka's table of legal transitions, written out here independently. */
class TxnStateTest {

    /** from &rarr; the states it may become. */
    private static final Map<TransactionState, Set<TransactionState>> LEGAL = new EnumMap<>(TransactionState.class);

    static {
        LEGAL.put(EMPTY, EnumSet.of(EMPTY, ONGOING, PREPARE_ABORT, DEAD));
        LEGAL.put(ONGOING, EnumSet.of(ONGOING, PREPARE_COMMIT, PREPARE_ABORT, PREPARE_EPOCH_FENCE));
        LEGAL.put(PREPARE_COMMIT, EnumSet.of(COMPLETE_COMMIT));
        LEGAL.put(PREPARE_ABORT, EnumSet.of(COMPLETE_ABORT));
        LEGAL.put(COMPLETE_COMMIT, EnumSet.of(EMPTY, ONGOING, PREPARE_ABORT, DEAD));
        LEGAL.put(COMPLETE_ABORT, EnumSet.of(EMPTY, ONGOING, PREPARE_ABORT, DEAD));
        LEGAL.put(DEAD, EnumSet.noneOf(TransactionState.class));
        LEGAL.put(PREPARE_EPOCH_FENCE, EnumSet.of(PREPARE_ABORT));
    }

    @Test
    void everyPairIsLegalExactlyAsInKafka() {
        for (TransactionState from : TransactionState.values()) {
            for (TransactionState to : TransactionState.values()) {
                boolean legal = LEGAL.get(from).contains(to);
                assertThat(from.canTransitionTo(to)).as(from + " -> " + to).isEqualTo(legal);
                if (legal) {
                    TransactionState.checkTransition("t", from, to);
                } else {
                    assertThatThrownBy(() -> TransactionState.checkTransition("t", from, to))
                            .isInstanceOf(IllegalStateException.class)
                            .hasMessageContaining(from + " -> " + to)
                            .hasMessageContaining("t");
                }
            }
        }
    }

    @Test
    void idsRoundTripAndOnlyLiveStatesAreWritten() {
        for (TransactionState state : TransactionState.values()) {
            assertThat(TransactionState.fromId(state.id())).isEqualTo(state);
            assertThat(state.isDurable()).isEqualTo(state != DEAD && state != PREPARE_EPOCH_FENCE);
        }
        assertThatThrownBy(() -> TransactionState.fromId((byte) 8)).isInstanceOf(IllegalArgumentException.class);
        assertThat(EnumSet.allOf(TransactionState.class))
                .filteredOn(TransactionState::isExpirationAllowed)
                .containsExactlyInAnyOrder(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
        assertThat(PREPARE_COMMIT.stateName()).isEqualTo("PrepareCommit");
    }

    @Test
    void metadataRefusesAnIllegalPreparedTransition() {
        // Given: a transaction that is being committed
        TransactionMetadata committing = TransactionMetadata.fresh("t", 7, 1000, 0)
                .prepareAddPartitions(Set.of(new TxnPartition("a", 0)), 1)
                .prepareEnd(true, 2);

        // Then: it may not take partitions, end again, be fenced or expire before it completes
        assertThatThrownBy(() -> committing.prepareAddPartitions(Set.of(new TxnPartition("a", 1)), 3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PREPARE_COMMIT -> ONGOING");
        assertThatThrownBy(() -> committing.prepareEnd(false, 3)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> committing.prepareFenceAndAbort(3)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> committing.prepareDead(3)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> committing.prepareEpoch((short) 1, (short) -1, 1000, 3))
                .isInstanceOf(IllegalStateException.class);
        assertThat(committing.prepareComplete(3).state()).isEqualTo(COMPLETE_COMMIT);
    }
}
