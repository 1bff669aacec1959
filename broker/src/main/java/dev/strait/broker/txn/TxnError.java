package dev.strait.broker.txn;

/**
 * What the transaction coordinator answers; the names equal kafka-clients' {@code Errors} constants, so the
 * protocol adapter maps them by name.
 */
public enum TxnError {
    NONE,
    /** Another change of this transactional id is in flight, or its markers are being written: retry shortly. */
    CONCURRENT_TRANSACTIONS,
    /**
     * A stale epoch, for request versions that predate PRODUCER_FENCED: the adapter sends this instead of
     * {@link #PRODUCER_FENCED} to such clients; the core itself never returns it.
     */
    INVALID_PRODUCER_EPOCH,
    /** A newer producer (epoch or producer id) took over this transactional id: this one must close. */
    PRODUCER_FENCED,
    /** The request does not fit the transaction's state (EndTxn with nothing to end, commit after abort...). */
    INVALID_TXN_STATE,
    /** The producer id is not the one this transactional id has (or the id is unknown). */
    INVALID_PRODUCER_ID_MAPPING,
    /** The timeout is not positive or exceeds {@code transaction.max.timeout.ms}. */
    INVALID_TRANSACTION_TIMEOUT,
    /** This node is loading the shard; retry. */
    COORDINATOR_LOAD_IN_PROGRESS,
    /** This node does not coordinate the shard; find the coordinator again. */
    NOT_COORDINATOR,
    /** The write to {@code __transaction_state} did not become durable in time; retry. */
    COORDINATOR_NOT_AVAILABLE,
    /** DescribeTransactions: no such transactional id here. */
    TRANSACTIONAL_ID_NOT_FOUND,
    /** A malformed request (an empty transactional id, no partitions). */
    INVALID_REQUEST,
    /** The coordinator failed on the request (a broken invariant, logged on the node): the client reports it. */
    UNKNOWN_SERVER_ERROR
}
