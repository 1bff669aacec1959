package dev.strait.broker.txn;

import java.util.EnumSet;
import java.util.Set;

/**
 * The state of one transactional id at its coordinator, with Kafka's legal transitions. Every transition the
 * coordinator prepares is checked here ({@link #checkTransition}); an illegal one is a programming error.
 *
 * <pre>
 *                 InitProducerId (new id, epoch bump)
 *   (none) ────────────────────────────▶ Empty ◀───────────────────────┐
 *                                          │ AddPartitions/AddOffsets  │ InitProducerId
 *                                          ▼                           │
 *                    AddPartitions ┌──▶ Ongoing ──────────┐            │
 *                                  └─────┘ │ EndTxn       │ InitProducerId of another producer, timeout:
 *                                          │              ▼ PrepareEpochFence (in memory only, epoch + 1)
 *                      commit ┌────────────┴───┐ abort    │
 *                             ▼                ▼          ▼
 *                      PrepareCommit       PrepareAbort ◀─┘
 *                             │ markers        │ markers
 *                             ▼ written        ▼ written
 *                      CompleteCommit      CompleteAbort ──▶ Empty / Ongoing (next transaction) ...
 *   Empty, CompleteCommit, CompleteAbort ──▶ Dead (transactional id expired: a tombstone)
 * </pre>
 *
 * <p>Transaction version 2 (KIP-890) adds Empty/Complete* &rarr; PrepareAbort (abort of an empty transaction); the
 * table has it, as Kafka's does, though this coordinator only runs version 1 transitions so far.
 */
public enum TransactionState {
    /** Has a producer id and epoch, no transaction. */
    EMPTY((byte) 0, "Empty", true),
    /** A transaction is running: partitions were added to it. */
    ONGOING((byte) 1, "Ongoing", false),
    /** The producer asked to commit; markers are being written. */
    PREPARE_COMMIT((byte) 2, "PrepareCommit", false),
    /** The producer asked to abort, or the coordinator aborts (fencing, timeout); markers are being written. */
    PREPARE_ABORT((byte) 3, "PrepareAbort", false),
    /** Every partition has its commit marker. */
    COMPLETE_COMMIT((byte) 4, "CompleteCommit", true),
    /** Every partition has its abort marker. */
    COMPLETE_ABORT((byte) 5, "CompleteAbort", true),
    /** The transactional id expired; a tombstone on the log, removed from memory. */
    DEAD((byte) 6, "Dead", false),
    /** An ongoing transaction about to be aborted with a bumped epoch; never written to the log. */
    PREPARE_EPOCH_FENCE((byte) 7, "PrepareEpochFence", false);

    private final byte id;
    private final String stateName;
    private final boolean expirationAllowed;

    TransactionState(byte id, String stateName, boolean expirationAllowed) {
        this.id = id;
        this.stateName = stateName;
        this.expirationAllowed = expirationAllowed;
    }

    /** The id written to {@code __transaction_state}. */
    public byte id() {
        return id;
    }

    /** The name Kafka's admin API shows (ListTransactions, DescribeTransactions). */
    public String stateName() {
        return stateName;
    }

    /** Whether the transactional id may expire in this state (no transaction in progress). */
    public boolean isExpirationAllowed() {
        return expirationAllowed;
    }

    /** Whether records may carry this state: every state but Dead (a tombstone) and PrepareEpochFence. */
    public boolean isDurable() {
        return this != DEAD && this != PREPARE_EPOCH_FENCE;
    }

    /** PrepareCommit or PrepareAbort: the outcome is decided and markers are owed to the partitions. */
    public boolean isPrepared() {
        return this == PREPARE_COMMIT || this == PREPARE_ABORT;
    }

    /** The states this one may be reached from. */
    public Set<TransactionState> validPreviousStates() {
        return switch (this) {
            case EMPTY -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case ONGOING -> EnumSet.of(ONGOING, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_COMMIT -> EnumSet.of(ONGOING);
            case PREPARE_ABORT -> EnumSet.of(ONGOING, PREPARE_EPOCH_FENCE, EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case COMPLETE_COMMIT -> EnumSet.of(PREPARE_COMMIT);
            case COMPLETE_ABORT -> EnumSet.of(PREPARE_ABORT);
            case DEAD -> EnumSet.of(EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT);
            case PREPARE_EPOCH_FENCE -> EnumSet.of(ONGOING);
        };
    }

    public boolean canTransitionTo(TransactionState next) {
        return next.validPreviousStates().contains(this);
    }

    /**
     * Checks one transition against the table.
     *
     * @throws IllegalStateException naming both states if {@code from} may not become {@code to}
     */
    public static void checkTransition(String transactionalId, TransactionState from, TransactionState to) {
        if (!from.canTransitionTo(to)) {
            throw new IllegalStateException(
                    "transactional id " + transactionalId + ": illegal transition " + from + " -> " + to);
        }
    }

    /**
     * The state with this {@link #id()}.
     *
     * @throws IllegalArgumentException if no state has this id
     */
    public static TransactionState fromId(byte id) {
        for (TransactionState state : values()) {
            if (state.id == id) {
                return state;
            }
        }
        throw new IllegalArgumentException("unknown transaction state id " + id);
    }
}
