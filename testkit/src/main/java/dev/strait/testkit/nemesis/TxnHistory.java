package dev.strait.testkit.nemesis;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * What the transactional workload ({@link TxnWorkload}) saw, recorded from many threads: every transaction a producer
 * began (which partition each of its records went to) and how it ended, and every record a {@code read_committed}
 * reader got while the faults ran. The {@link TxnChecker} judges a {@link #snapshot()} of it against the final reads.
 *
 * <p>A record's value names it: {@code <producer>:<transaction>:<partition>:<index>}, e.g. {@code t2:17:3:4} is record
 * 4 of transaction 17 of producer {@code t2} (transactional id {@code nemesis-txn-2}), written to partition 3.
 */
public final class TxnHistory {
    /** How a transaction ended, as its producer knows it. */
    public enum Outcome {
        /** {@code commitTransaction} returned. */
        COMMITTED,
        /** Never committed: {@code abortTransaction} was called, or a step before the commit failed. */
        ABORTED,
        /**
         * {@code commitTransaction} threw (e.g. a timeout): it may have committed or not, but all or nothing. The
         * producer is replaced and {@code initTransactions} completes or aborts what was pending.
         */
        UNKNOWN,
        /** Still open when the history was taken (the producer did not finish it in time): treated as unknown. */
        OPEN
    }

    /**
     * One transaction: its producer, its number (0, 1, ... per producer), the partition of each record (record i went
     * to {@code partitions.get(i)}), and its outcome.
     */
    public record Txn(String producer, long number, List<Integer> partitions, Outcome outcome) {
        public Txn {
            partitions = List.copyOf(partitions);
        }

        public int size() {
            return partitions.size();
        }

        /** The value of record {@code index}. */
        public String value(int index) {
            return TxnHistory.value(producer, number, partitions.get(index), index);
        }

        public String id() {
            return producer + ":" + number;
        }
    }

    /** Two different values read at one offset by the read_committed readers. */
    public record ReadConflict(int partition, long offset, String first, String second) {}

    private final Map<String, Txn> txns = new ConcurrentHashMap<>();
    private final Map<Integer, Map<Long, String>> read = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<ReadConflict> readConflicts = new ConcurrentLinkedQueue<>();

    public static String value(String producer, long txn, int partition, int index) {
        return producer + ":" + txn + ":" + partition + ":" + index;
    }

    /** Recorded before the first record is sent. */
    public void begun(String producer, long number, List<Integer> partitions) {
        Txn txn = new Txn(producer, number, partitions, Outcome.OPEN);
        txns.put(txn.id(), txn);
    }

    public void ended(String producer, long number, Outcome outcome) {
        txns.computeIfPresent(
                producer + ":" + number, (k, t) -> new Txn(t.producer(), t.number(), t.partitions(), outcome));
    }

    /** A record a read_committed reader got while the workload ran. */
    public void read(int partition, long offset, String value) {
        String first =
                read.computeIfAbsent(partition, p -> new ConcurrentHashMap<>()).putIfAbsent(offset, value);
        if (first != null && !first.equals(value)) {
            readConflicts.add(new ReadConflict(partition, offset, first, value));
        }
    }

    /** Transactions per outcome so far. */
    public Map<Outcome, Long> outcomes() {
        Map<Outcome, Long> counts = new TreeMap<>();
        txns.values().forEach(t -> counts.merge(t.outcome(), 1L, Long::sum));
        return counts;
    }

    /** An immutable copy for the checker. */
    public Snapshot snapshot() {
        Map<Integer, Map<Long, String>> reads = new TreeMap<>();
        read.forEach((p, m) -> reads.put(p, new TreeMap<>(m)));
        List<Txn> all = new ArrayList<>(txns.values());
        all.sort(java.util.Comparator.comparing(Txn::producer).thenComparingLong(Txn::number));
        return new Snapshot(all, reads, new ArrayList<>(readConflicts));
    }

    /** The history as the checker sees it: transactions, live read_committed reads by partition and offset. */
    public record Snapshot(
            List<Txn> txns, Map<Integer, Map<Long, String>> liveReads, List<ReadConflict> readConflicts) {
        public Snapshot {
            txns = List.copyOf(txns);
            liveReads = Map.copyOf(liveReads);
            readConflicts = List.copyOf(readConflicts);
        }
    }
}
