package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * The {@code __transaction_state} record format: any metadata a record may hold round-trips exactly, and bytes that
 * are not such a record (any strict prefix, trailing bytes, an unknown version, random bytes) are refused with
 * {@link CorruptTransactionRecordException}, never read as something else or failing with another exception.
 */
class TxnRecordsPropertyTest {

    @Property(tries = 500)
    void anyMetadataRoundTrips(@ForAll("metadata") TransactionMetadata txn) {
        // When
        TransactionRecords.Entry entry = TransactionRecords.entry(txn);

        // Then
        String id = TransactionRecords.readKey(entry.key());
        assertThat(id).isEqualTo(txn.transactionalId());
        assertThat(TransactionRecords.readValue(id, entry.value())).isEqualTo(txn);
        assertThat(TransactionLoader.replay(List.of(entry))).containsExactlyEntriesOf(java.util.Map.of(id, txn));
    }

    @Property(tries = 200)
    void everyStrictPrefixIsRefused(@ForAll("metadata") TransactionMetadata txn) {
        // Given
        byte[] value = TransactionRecords.value(txn);
        byte[] key = TransactionRecords.key(txn.transactionalId());

        // Then
        for (int length = 0; length < value.length; length++) {
            byte[] prefix = Arrays.copyOf(value, length);
            assertThatThrownBy(() -> TransactionRecords.readValue("t", prefix))
                    .isInstanceOf(CorruptTransactionRecordException.class)
                    .hasMessageContaining("transaction record of t");
        }
        for (int length = 0; length < key.length; length++) {
            byte[] prefix = Arrays.copyOf(key, length);
            assertThatThrownBy(() -> TransactionRecords.readKey(prefix))
                    .isInstanceOf(CorruptTransactionRecordException.class);
        }
    }

    @Property(tries = 200)
    void trailingBytesAndUnknownVersionsAreRefused(
            @ForAll("metadata") TransactionMetadata txn, @ForAll @IntRange(min = 1, max = 9) int extra) {
        // Given
        byte[] value = TransactionRecords.value(txn);
        byte[] longer = Arrays.copyOf(value, value.length + extra);
        byte[] newer = value.clone();
        newer[0] = 1;
        byte[] key = TransactionRecords.key(txn.transactionalId());
        byte[] longerKey = Arrays.copyOf(key, key.length + extra);

        // Then
        assertThatThrownBy(() -> TransactionRecords.readValue("t", longer))
                .isInstanceOf(CorruptTransactionRecordException.class)
                .hasMessageContaining("trailing bytes");
        assertThatThrownBy(() -> TransactionRecords.readValue("t", newer))
                .isInstanceOf(CorruptTransactionRecordException.class)
                .hasMessageContaining("unknown version 1");
        assertThatThrownBy(() -> TransactionRecords.readKey(longerKey))
                .isInstanceOf(CorruptTransactionRecordException.class);
    }

    @Property(tries = 2000)
    void randomBytesAreRefusedOrReadAsAValidValue(@ForAll @Size(max = 120) byte[] garbage) {
        // Given: mostly garbage after a valid version byte, so the parser gets past the first check
        byte[] bytes = garbage.clone();
        if (bytes.length > 0 && bytes.length % 2 == 0) {
            bytes[0] = TransactionRecords.VALUE_VERSION;
        }

        // Then: nothing but the one exception, and whatever is read is a valid value
        try {
            TransactionMetadata read = TransactionRecords.readValue("t", bytes);
            assertThat(read.state().isDurable()).isTrue();
            assertThat(TransactionRecords.readValue("t", TransactionRecords.value(read)))
                    .isEqualTo(read);
        } catch (CorruptTransactionRecordException expected) {
            assertThat(expected).hasMessageContaining("transaction record");
        }
        try {
            assertThat(TransactionRecords.readKey(bytes)).isNotEmpty();
        } catch (CorruptTransactionRecordException expected) {
            assertThat(expected).hasMessageContaining("transaction record");
        }
    }

    @Property(tries = 50)
    void statesThatAreNeverWrittenAreRefusedBothWays(@ForAll("metadata") TransactionMetadata txn) {
        // Given: a valid value whose state byte names a state records never hold
        byte[] value = TransactionRecords.value(txn);
        int stateAt = 1 + 8 + 8 + 8 + 2 + 2 + 4;
        byte[] fence = value.clone();
        fence[stateAt] = TransactionState.PREPARE_EPOCH_FENCE.id();
        byte[] dead = value.clone();
        dead[stateAt] = TransactionState.DEAD.id();
        byte[] unknown = value.clone();
        unknown[stateAt] = 42;

        // Then
        for (byte[] bad : List.of(fence, dead, unknown)) {
            assertThatThrownBy(() -> TransactionRecords.readValue("t", bad))
                    .isInstanceOf(CorruptTransactionRecordException.class);
        }
        assertThat(TransactionRecords.value(withState(txn, TransactionState.DEAD)))
                .as("a tombstone")
                .isNull();
        assertThatThrownBy(() -> TransactionRecords.value(withState(txn, TransactionState.PREPARE_EPOCH_FENCE)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never written");
    }

    private static TransactionMetadata withState(TransactionMetadata txn, TransactionState state) {
        return new TransactionMetadata(
                txn.transactionalId(),
                txn.producerId(),
                txn.previousProducerId(),
                txn.nextProducerId(),
                txn.producerEpoch(),
                txn.lastProducerEpoch(),
                txn.txnTimeoutMs(),
                state,
                txn.partitions(),
                txn.txnStartTimestampMs(),
                txn.txnLastUpdateTimestampMs());
    }

    @Provide
    Arbitrary<TransactionMetadata> metadata() {
        Arbitrary<String> ids = Arbitraries.strings().ofMinLength(1).ofMaxLength(30);
        Arbitrary<long[]> producerIds = Combinators.combine(
                        Arbitraries.longs().between(0, Long.MAX_VALUE),
                        Arbitraries.longs().between(-1, Long.MAX_VALUE),
                        Arbitraries.longs().between(-1, Long.MAX_VALUE))
                .as((id, previous, next) -> new long[] {id, previous, next});
        Arbitrary<short[]> epochs = Combinators.combine(
                        Arbitraries.shorts().between((short) 0, Short.MAX_VALUE),
                        Arbitraries.shorts().between((short) -1, Short.MAX_VALUE))
                .as((epoch, last) -> new short[] {epoch, last});
        Arbitrary<Integer> timeouts = Arbitraries.integers().between(1, Integer.MAX_VALUE);
        Arbitrary<TransactionState> states =
                Arbitraries.of(TransactionState.class).filter(TransactionState::isDurable);
        Arbitrary<TxnPartition> partition = Combinators.combine(
                        Arbitraries.of("a", "b", "orders", "__consumer_offsets", "ü-тема"),
                        Arbitraries.integers().between(0, 5000))
                .as(TxnPartition::new);
        Arbitrary<Set<TxnPartition>> partitions = partition.set().ofMaxSize(12);
        Arbitrary<long[]> times = Combinators.combine(Arbitraries.longs(), Arbitraries.longs())
                .as((start, update) -> new long[] {start, update});
        return Combinators.combine(ids, producerIds, epochs, timeouts, states, partitions, times)
                .as((id, pids, eps, timeout, state, parts, ts) -> new TransactionMetadata(
                        id, pids[0], pids[1], pids[2], eps[0], eps[1], timeout, state, parts, ts[0], ts[1]));
    }
}
