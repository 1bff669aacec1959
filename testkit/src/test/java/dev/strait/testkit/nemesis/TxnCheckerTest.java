package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class TxnCheckerTest {
    /** Each transaction writes records 0, 1 to partition 0 and 2, 3 to partition 1. */
    private static final List<Integer> LAYOUT = List.of(0, 0, 1, 1);

    /**
     * Producer t1: transaction 0 committed, 1 aborted, 2 unknown (its commit threw; it did commit), 3 unknown (it did
     * not), 4 committed. Producer t2: transaction 0 committed.
     */
    private static TxnHistory history() {
        TxnHistory h = new TxnHistory();
        TxnHistory.Outcome[] t1 = {
            TxnHistory.Outcome.COMMITTED,
            TxnHistory.Outcome.ABORTED,
            TxnHistory.Outcome.UNKNOWN,
            TxnHistory.Outcome.UNKNOWN,
            TxnHistory.Outcome.COMMITTED
        };
        for (int n = 0; n < t1.length; n++) {
            h.begun("t1", n, LAYOUT);
            h.ended("t1", n, t1[n]);
        }
        h.begun("t2", 0, LAYOUT);
        h.ended("t2", 0, TxnHistory.Outcome.COMMITTED);
        return h;
    }

    /** The log as written: every transaction in turn, its records on partition 0 and 1, markers taking an offset. */
    private static final class Logs {
        final Map<Integer, List<Checker.LogRecord>> uncommitted = new TreeMap<>();
        final Map<Integer, List<Checker.LogRecord>> committed = new TreeMap<>();
        final long[] next = new long[2];

        void txn(String producer, long n, boolean visible) {
            for (int i = 0; i < LAYOUT.size(); i++) {
                int p = LAYOUT.get(i);
                add(p, TxnHistory.value(producer, n, p, i), visible);
            }
            next[0]++; // the markers
            next[1]++;
        }

        void add(int p, String value, boolean visible) {
            Checker.LogRecord r = new Checker.LogRecord(next[p]++, value);
            uncommitted.computeIfAbsent(p, k -> new ArrayList<>()).add(r);
            if (visible) {
                committed.computeIfAbsent(p, k -> new ArrayList<>()).add(r);
            }
        }
    }

    /** The log of {@link #history()} as a correct broker keeps it. */
    private static Logs cleanLogs() {
        Logs logs = new Logs();
        logs.txn("t1", 0, true);
        logs.txn("t2", 0, true);
        logs.txn("t1", 1, false);
        logs.txn("t1", 2, true);
        logs.txn("t1", 3, false);
        logs.txn("t1", 4, true);
        return logs;
    }

    private static List<Anomaly> counted(TxnChecker.Result result) {
        return result.anomalies().stream().filter(Anomaly::counted).toList();
    }

    @Test
    void aCleanHistoryHasNoAnomaly() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        for (Checker.LogRecord r : logs.committed.get(0).subList(0, 3)) {
            h.read(0, r.offset(), r.value());
        }
        TxnChecker.Result result = TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted);
        assertThat(result.anomalies()).isEmpty();
        assertThat(result.stats()).isEqualTo(new TxnChecker.Stats(6, 3, 1, 2, 1, 1, 12, 3, 16, 24));
    }

    @Test
    void anAbortedRecordSeenByReadCommittedIsFound() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        Checker.LogRecord aborted = logs.uncommitted.get(1).stream()
                .filter(r -> r.value().startsWith("t1:1:"))
                .findFirst()
                .orElseThrow();
        h.read(1, aborted.offset(), aborted.value()); // seen live only
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies).extracting(Anomaly::type).contains(Anomaly.Type.ABORTED_READ);
        assertThat(anomalies)
                .filteredOn(a -> a.type() == Anomaly.Type.ABORTED_READ)
                .singleElement()
                .satisfies(a -> assertThat(a.count()).isEqualTo(1));
    }

    @Test
    void aMissingCommittedRecordIsFoundAndTheTransactionIsPartial() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        logs.committed.get(1).removeIf(r -> r.value().equals("t2:0:1:3"));
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies)
                .extracting(Anomaly::type, Anomaly::count)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(Anomaly.Type.COMMITTED_MISSING, 1L),
                        org.assertj.core.groups.Tuple.tuple(Anomaly.Type.PARTIAL_TRANSACTION, 1L));
    }

    @Test
    void aWholeCommittedTransactionMissingIsNotPartial() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        logs.committed.values().forEach(l -> l.removeIf(r -> r.value().startsWith("t1:4:")));
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies)
                .extracting(Anomaly::type, Anomaly::count)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Anomaly.Type.COMMITTED_MISSING, 4L));
    }

    @Test
    void anUnknownTransactionMustBeAllOrNothing() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        // t1:3 (unknown) becomes visible on partition 0 only
        logs.uncommitted.get(0).stream()
                .filter(r -> r.value().startsWith("t1:3:"))
                .forEach(r -> logs.committed.get(0).add(r));
        logs.committed.get(0).sort(java.util.Comparator.comparingLong(Checker.LogRecord::offset));
        TxnChecker.Result result = TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted);
        assertThat(counted(result))
                .extracting(Anomaly::type, Anomaly::count)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Anomaly.Type.PARTIAL_TRANSACTION, 1L));
    }

    @Test
    void aDuplicateIsFound() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        logs.add(0, "t1:4:0:1", true); // written again after the last transaction
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies).extracting(Anomaly::type).contains(Anomaly.Type.DUPLICATED);
    }

    @Test
    void aDuplicateOnlyInAnAbortedCopyIsReportedNotCounted() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        logs.add(0, "t1:4:0:1", false); // a copy the broker wrote and an abort marker hid
        TxnChecker.Result result = TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted);
        assertThat(counted(result)).isEmpty();
        assertThat(result.anomalies())
                .singleElement()
                .satisfies(a -> assertThat(a.type()).isEqualTo(Anomaly.Type.DUPLICATED))
                .satisfies(a -> assertThat(a.counted()).isFalse());
    }

    @Test
    void recordsOfOneProducerOutOfTransactionOrderAreFound() {
        TxnHistory h = history();
        Logs logs = new Logs();
        logs.txn("t1", 2, true); // transaction 2 before 0: records 0.0 and 0.1 come late on both partitions
        logs.txn("t1", 0, true);
        logs.txn("t2", 0, true);
        logs.txn("t1", 1, false);
        logs.txn("t1", 3, false);
        logs.txn("t1", 4, true);
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies)
                .extracting(Anomaly::type, Anomaly::count)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Anomaly.Type.REORDERED, 4L));
    }

    @Test
    void aLiveReadThatIsGoneAtTheEndIsFound() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        h.read(0, 99, "t1:0:0:0");
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies).extracting(Anomaly::type).contains(Anomaly.Type.VANISHED, Anomaly.Type.DUPLICATED);
    }

    @Test
    void aRecordNoTransactionWroteIsAPhantom() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        logs.add(1, "t9:0:1:2", true);
        logs.add(1, "t1:0:1:0", true); // record 0 of t1:0 belongs to partition 0
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies)
                .extracting(Anomaly::type, Anomaly::count)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(Anomaly.Type.PHANTOM_READ, 2L));
    }

    @Test
    void twoValuesAtOneOffsetAreAConflict() {
        TxnHistory h = history();
        Logs logs = cleanLogs();
        Checker.LogRecord first = logs.committed.get(0).get(0);
        h.read(0, first.offset(), "t2:0:0:0");
        List<Anomaly> anomalies = counted(TxnChecker.check(h.snapshot(), logs.committed, logs.uncommitted));
        assertThat(anomalies).extracting(Anomaly::type).contains(Anomaly.Type.OFFSET_CONFLICT);
    }
}
