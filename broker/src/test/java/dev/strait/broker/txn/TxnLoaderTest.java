package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Replaying {@code __transaction_state}: the latest value per id wins, tombstones remove, corruption stops it. */
class TxnLoaderTest {

    private static final TxnPartition P = new TxnPartition("p", 0);

    @Test
    void theLatestValueWinsAndTombstonesRemove() {
        // Given: two ids through a few transitions, one of them expired and started again
        TransactionMetadata a0 = TransactionMetadata.fresh("a", 1, 1000, 10);
        TransactionMetadata a1 = a0.prepareAddPartitions(Set.of(P), 11);
        TransactionMetadata a2 = a1.prepareEnd(true, 12);
        TransactionMetadata b0 = TransactionMetadata.fresh("b", 2, 1000, 10);
        TransactionMetadata b1 = TransactionMetadata.fresh("b", 3, 2000, 30);
        List<TransactionRecords.Entry> log = List.of(
                TransactionRecords.entry(a0),
                TransactionRecords.entry(b0),
                TransactionRecords.entry(a1),
                TransactionRecords.entry(b0.prepareDead(20)),
                TransactionRecords.entry(a2),
                TransactionRecords.entry(b1));

        // When
        var state = TransactionLoader.replay(log);

        // Then
        assertThat(state).containsOnlyKeys("a", "b");
        assertThat(state.get("a")).isEqualTo(a2);
        assertThat(state.get("b")).isEqualTo(b1);
        assertThat(TransactionLoader.replay(log.subList(0, 4))).containsOnlyKeys("a");
        assertThat(TransactionLoader.markersToResend(state.values(), 4))
                .containsExactly(new WriteMarkers("a", 1, (short) 0, true, Set.of(P), 4));
    }

    @Test
    void aCorruptRecordStopsTheReplayNamingIt() {
        // Given
        byte[] value = TransactionRecords.value(TransactionMetadata.fresh("a", 1, 1000, 10));
        byte[] truncated = java.util.Arrays.copyOf(value, value.length - 1);
        List<TransactionRecords.Entry> log =
                List.of(new TransactionRecords.Entry(TransactionRecords.key("a"), truncated));

        // Then
        assertThatThrownBy(() -> TransactionLoader.replay(log))
                .isInstanceOf(CorruptTransactionRecordException.class)
                .hasMessageContaining("transaction record of a");
    }
}
