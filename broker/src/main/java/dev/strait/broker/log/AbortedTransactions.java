package dev.strait.broker.log;

/**
 * Which transactional batches of a log belong to aborted transactions, as the partition knows from its abort
 * markers: the compaction drops their records and never lets their keys hide an older committed value. Asked only
 * about batches below the last stable offset, whose transactions have all ended.
 */
@FunctionalInterface
public interface AbortedTransactions {

    /** Whether {@code producerId}'s data at {@code offset} is part of a transaction that aborted. */
    boolean contains(long producerId, long offset);
}
