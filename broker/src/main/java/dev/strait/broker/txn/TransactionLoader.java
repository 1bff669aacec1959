package dev.strait.broker.txn;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Taking over a shard, as pure functions: the state a partition of {@code __transaction_state} holds, and what a
 * new coordinator owes for it. The shard's loop replays the partition (up to its log end: what lies above the high
 * watermark is served only once durable, as for the group coordinator), builds a
 * {@link TransactionCoordinatorCore#loaded} core, and writes the markers {@link TransactionCoordinatorCore#activate}
 * returns.
 */
public final class TransactionLoader {

    private TransactionLoader() {}

    /**
     * The state records leave, in log order: the latest value per transactional id wins, a tombstone removes it.
     *
     * @throws CorruptTransactionRecordException at the first record that cannot be read
     */
    public static Map<String, TransactionMetadata> replay(Iterable<TransactionRecords.Entry> records) {
        Map<String, TransactionMetadata> state = new HashMap<>();
        for (TransactionRecords.Entry record : records) {
            String transactionalId = TransactionRecords.readKey(record.key());
            byte[] value = record.value();
            if (value == null) {
                state.remove(transactionalId);
            } else {
                state.put(transactionalId, TransactionRecords.readValue(transactionalId, value));
            }
        }
        return state;
    }

    /**
     * The markers a coordinator that takes over owes: every transaction decided (PrepareCommit, PrepareAbort) but
     * not complete may have reached only some of its partitions before the previous coordinator stopped. Writing a
     * marker twice is harmless: a partition with no transaction of that producer open ignores it. Ongoing
     * transactions need nothing: their producer goes on, or their timeout aborts them.
     */
    public static List<WriteMarkers> markersToResend(Collection<TransactionMetadata> state, int coordinatorEpoch) {
        List<WriteMarkers> owed = new ArrayList<>();
        for (TransactionMetadata txn : state) {
            if (txn.state().isPrepared()) {
                owed.add(WriteMarkers.of(txn, coordinatorEpoch));
            }
        }
        owed.sort(Comparator.comparing(WriteMarkers::transactionalId));
        return owed;
    }
}
