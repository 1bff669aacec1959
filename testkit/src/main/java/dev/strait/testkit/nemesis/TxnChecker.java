package dev.strait.testkit.nemesis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The oracle of the transactional workload: judges a {@link TxnHistory} against the final reads after healing (one
 * {@code read_committed}, one {@code read_uncommitted}, both from the beginning to the end of every partition). Pure
 * (no clock, no I/O), so it is tested on hand-made histories. Anomalies:
 * <ul>
 *   <li>{@code ABORTED_READ}: a read_committed read (live or final) returned a record of an aborted transaction;</li>
 *   <li>{@code COMMITTED_MISSING}: a record of a committed transaction is not in the final read_committed read;</li>
 *   <li>{@code PARTIAL_TRANSACTION}: a committed or unknown transaction is partly visible in the final read_committed
 *       read (a committed one missing records is counted here once and its records under COMMITTED_MISSING); an
 *       unknown transaction (its commit threw) may be visible or not, but all or nothing;</li>
 *   <li>{@code DUPLICATED}: a record at more than one offset in the read_committed reads (in the read_uncommitted read
 *       only: reported, not counted, since an aborted copy is invisible to read_committed consumers);</li>
 *   <li>{@code REORDERED}: in the final read_committed read of a partition, records of one producer not in (transaction,
 *       record) order;</li>
 *   <li>{@code OFFSET_CONFLICT}: two values at one offset (live reads, final reads); {@code VANISHED}: a record a
 *       live read_committed reader got is not at its offset in the final read_committed read;
 *       {@code PHANTOM_READ}: a record no transaction wrote (or in another partition than its own).</li>
 * </ul>
 */
public final class TxnChecker {
    private static final int EXAMPLES = 5;

    private TxnChecker() {}

    /**
     * The transactional figures of a run (or of several, added up): transactions by outcome; unknown ones as the
     * final read resolved them (all visible, none visible; partly visible ones are anomalies); records of committed
     * transactions; records read live by read_committed readers, and by the two final reads.
     */
    public record Stats(
            long transactions,
            long committed,
            long aborted,
            long unknown,
            long unknownVisible,
            long unknownInvisible,
            long committedRecords,
            long liveReads,
            long finalCommittedRecords,
            long finalUncommittedRecords) {
        public static final Stats NONE = new Stats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        public Stats plus(Stats o) {
            return new Stats(
                    transactions + o.transactions,
                    committed + o.committed,
                    aborted + o.aborted,
                    unknown + o.unknown,
                    unknownVisible + o.unknownVisible,
                    unknownInvisible + o.unknownInvisible,
                    committedRecords + o.committedRecords,
                    liveReads + o.liveReads,
                    finalCommittedRecords + o.finalCommittedRecords,
                    finalUncommittedRecords + o.finalUncommittedRecords);
        }

        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "%,d transactions: %,d committed, %,d aborted, %,d unknown (%,d visible, %,d not);"
                            + " %,d committed records; read_committed read %,d live, %,d at the end;"
                            + " read_uncommitted %,d at the end",
                    transactions,
                    committed,
                    aborted,
                    unknown,
                    unknownVisible,
                    unknownInvisible,
                    committedRecords,
                    liveReads,
                    finalCommittedRecords,
                    finalUncommittedRecords);
        }
    }

    /** The verdict and the figures. */
    public record Result(List<Anomaly> anomalies, Stats stats) {
        public Result {
            anomalies = List.copyOf(anomalies);
        }
    }

    /** A parsed record value: {@code <producer>:<transaction>:<partition>:<index>}. */
    record RecordId(String producer, long txn, int partition, int index) {
        static @Nullable RecordId parse(String value) {
            String[] parts = value.split(":", -1);
            if (parts.length != 4) {
                return null;
            }
            try {
                return new RecordId(
                        parts[0], Long.parseLong(parts[1]), Integer.parseInt(parts[2]), Integer.parseInt(parts[3]));
            } catch (NumberFormatException e) {
                return null;
            }
        }

        String txnId() {
            return producer + ":" + txn;
        }

        /** Whether this record comes after {@code o} in its producer's order. */
        int compareOrder(RecordId o) {
            int c = Long.compare(txn, o.txn);
            return c != 0 ? c : Integer.compare(index, o.index);
        }
    }

    /** Findings of one kind: how many, and a few examples. */
    private static final class Finding {
        long count;
        final List<String> examples = new ArrayList<>();

        void add(long n, String example) {
            count += n;
            if (examples.size() < EXAMPLES) {
                examples.add(example);
            }
        }
    }

    /**
     * @param history          the transactions and the live read_committed reads
     * @param committedRead    the final read_committed read, per partition in offset order
     * @param uncommittedRead  the final read_uncommitted read, per partition in offset order
     */
    public static Result check(
            TxnHistory.Snapshot history,
            Map<Integer, List<Checker.LogRecord>> committedRead,
            Map<Integer, List<Checker.LogRecord>> uncommittedRead) {
        Judge judge = new Judge(history);
        judge.liveReads();
        judge.finalCommittedRead(committedRead);
        judge.duplicates();
        judge.finalUncommittedRead(uncommittedRead);
        judge.liveReadsStillThere();
        judge.transactions();
        judge.order();
        return judge.result();
    }

    /** One judgement's state: what was seen where, and the findings so far. */
    private static final class Judge {
        final TxnHistory.Snapshot history;
        final Map<String, TxnHistory.Txn> txns = new HashMap<>();
        final Map<Anomaly.Type, Finding> findings = new TreeMap<>();
        final Finding excusedDuplicates = new Finding();
        /** Each record's offsets in the read_committed reads. */
        final Map<String, Set<Long>> offsetsOf = new HashMap<>();
        /** Per transaction, its records in the final read_committed read. */
        final Map<String, Set<Integer>> finalVisible = new HashMap<>();
        /** Per aborted transaction, its records read_committed returned (value: where). */
        final Map<String, Map<String, String>> abortedSeen = new TreeMap<>();

        final Map<Integer, Map<Long, String>> finalAt = new TreeMap<>();
        long liveReads;
        long finalCommitted;
        long finalUncommitted;
        long committed;
        long aborted;
        long unknown;
        long unknownVisible;
        long unknownInvisible;
        long committedRecords;

        Judge(TxnHistory.Snapshot history) {
            this.history = history;
            history.txns().forEach(t -> txns.put(t.id(), t));
        }

        Finding finding(Anomaly.Type type) {
            return findings.computeIfAbsent(type, t -> new Finding());
        }

        void liveReads() {
            for (Map.Entry<Integer, Map<Long, String>> e : new TreeMap<>(history.liveReads()).entrySet()) {
                for (Map.Entry<Long, String> r : e.getValue().entrySet()) {
                    liveReads++;
                    observe(e.getKey(), r.getKey(), r.getValue(), "live");
                }
            }
            for (TxnHistory.ReadConflict c : history.readConflicts()) {
                finding(Anomaly.Type.OFFSET_CONFLICT)
                        .add(
                                1,
                                "p" + c.partition() + "@" + c.offset() + " read live: " + c.first() + " and "
                                        + c.second());
            }
        }

        void finalCommittedRead(Map<Integer, List<Checker.LogRecord>> committedRead) {
            for (Map.Entry<Integer, List<Checker.LogRecord>> e : new TreeMap<>(committedRead).entrySet()) {
                int p = e.getKey();
                Map<Long, String> at = finalAt.computeIfAbsent(p, k -> new TreeMap<>());
                for (Checker.LogRecord r : e.getValue()) {
                    finalCommitted++;
                    String before = at.putIfAbsent(r.offset(), r.value());
                    if (before != null && !before.equals(r.value())) {
                        finding(Anomaly.Type.OFFSET_CONFLICT)
                                .add(1, "p" + p + "@" + r.offset() + " final read: " + before + " and " + r.value());
                    }
                    RecordId id = observe(p, r.offset(), r.value(), "final");
                    if (id != null) {
                        finalVisible
                                .computeIfAbsent(id.txnId(), k -> new TreeSet<>())
                                .add(id.index());
                    }
                }
            }
            abortedSeen.forEach((txn, records) -> finding(Anomaly.Type.ABORTED_READ)
                    .add(records.size(), "aborted transaction " + txn + ": " + records.values()));
        }

        /** Records one read_committed observation; returns its id when it belongs to a known transaction. */
        @Nullable
        RecordId observe(int partition, long offset, String value, String when) {
            RecordId id = RecordId.parse(value);
            TxnHistory.Txn txn = id == null ? null : txns.get(id.txnId());
            if (id == null || txn == null || !belongs(id, txn, partition)) {
                finding(Anomaly.Type.PHANTOM_READ)
                        .add(1, "p" + partition + "@" + offset + " " + value + " (" + when + ")");
                return null;
            }
            offsetsOf.computeIfAbsent(value, k -> new TreeSet<>()).add(offset);
            if (txn.outcome() == TxnHistory.Outcome.ABORTED) {
                abortedSeen
                        .computeIfAbsent(txn.id(), k -> new TreeMap<>())
                        .putIfAbsent(value, value + "@" + offset + " (" + when + ")");
            }
            return id;
        }

        static boolean belongs(RecordId id, TxnHistory.Txn txn, int partition) {
            return id.partition() == partition
                    && id.index() >= 0
                    && id.index() < txn.size()
                    && txn.partitions().get(id.index()) == partition;
        }

        void duplicates() {
            offsetsOf.forEach((value, offsets) -> {
                if (offsets.size() > 1) {
                    finding(Anomaly.Type.DUPLICATED)
                            .add(offsets.size() - 1, value + " at offsets " + offsets + " (read_committed)");
                }
            });
        }

        void finalUncommittedRead(Map<Integer, List<Checker.LogRecord>> uncommittedRead) {
            Map<String, Set<Long>> uncommittedOffsets = new HashMap<>();
            for (Map.Entry<Integer, List<Checker.LogRecord>> e : new TreeMap<>(uncommittedRead).entrySet()) {
                int p = e.getKey();
                Map<Long, String> committedAt = finalAt.getOrDefault(p, Map.of());
                for (Checker.LogRecord r : e.getValue()) {
                    finalUncommitted++;
                    uncommittedOffsets
                            .computeIfAbsent(r.value(), k -> new TreeSet<>())
                            .add(r.offset());
                    String c = committedAt.get(r.offset());
                    if (c != null && !c.equals(r.value())) {
                        finding(Anomaly.Type.OFFSET_CONFLICT)
                                .add(
                                        1,
                                        "p" + p + "@" + r.offset() + ": read_committed " + c + ", read_uncommitted "
                                                + r.value());
                    }
                }
            }
            uncommittedOffsets.forEach((value, offsets) -> {
                if (offsets.size() > 1
                        && offsetsOf.getOrDefault(value, Set.of()).size() <= 1) {
                    excusedDuplicates.add(offsets.size() - 1, value + " at offsets " + offsets);
                }
            });
        }

        /** What a live reader got must still be at its offset, with the same value, at the end. */
        void liveReadsStillThere() {
            for (Map.Entry<Integer, Map<Long, String>> e : new TreeMap<>(history.liveReads()).entrySet()) {
                int p = e.getKey();
                Map<Long, String> at = finalAt.getOrDefault(p, Map.of());
                for (Map.Entry<Long, String> r : e.getValue().entrySet()) {
                    String now = at.get(r.getKey());
                    if (now == null) {
                        finding(Anomaly.Type.VANISHED)
                                .add(1, "p" + p + "@" + r.getKey() + " " + r.getValue() + " read live, not at the end");
                    } else if (!now.equals(r.getValue())) {
                        finding(Anomaly.Type.OFFSET_CONFLICT)
                                .add(
                                        1,
                                        "p" + p + "@" + r.getKey() + ": read live " + r.getValue() + ", at the end "
                                                + now);
                    }
                }
            }
        }

        /** Committed transactions whole, unknown ones all or nothing. */
        void transactions() {
            for (TxnHistory.Txn t : history.txns()) {
                Set<Integer> visible = finalVisible.getOrDefault(t.id(), Set.of());
                switch (t.outcome()) {
                    case ABORTED -> aborted++;
                    case COMMITTED -> committedTransaction(t, visible);
                    case UNKNOWN, OPEN -> unknownTransaction(t, visible);
                }
            }
        }

        private void committedTransaction(TxnHistory.Txn t, Set<Integer> visible) {
            int n = t.size();
            committed++;
            committedRecords += n;
            if (visible.size() == n) {
                return;
            }
            List<String> missing = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                if (!visible.contains(i)) {
                    missing.add(t.value(i));
                }
            }
            finding(Anomaly.Type.COMMITTED_MISSING)
                    .add(missing.size(), "committed transaction " + t.id() + " lacks " + missing);
            if (!visible.isEmpty()) {
                finding(Anomaly.Type.PARTIAL_TRANSACTION)
                        .add(1, "committed " + t.id() + ": " + visible.size() + " of " + n + " visible");
            }
        }

        private void unknownTransaction(TxnHistory.Txn t, Set<Integer> visible) {
            unknown++;
            if (visible.isEmpty()) {
                unknownInvisible++;
            } else if (visible.size() == t.size()) {
                unknownVisible++;
            } else {
                finding(Anomaly.Type.PARTIAL_TRANSACTION)
                        .add(
                                1,
                                t.outcome().name().toLowerCase(Locale.ROOT) + " " + t.id() + ": " + visible.size()
                                        + " of " + t.size() + " visible (records " + visible + ")");
            }
        }

        /** Within a partition, one producer's records in (transaction, record) order. */
        void order() {
            for (Map.Entry<Integer, Map<Long, String>> e : finalAt.entrySet()) {
                Map<String, RecordId> last = new HashMap<>();
                Map<String, Long> lastOffset = new HashMap<>();
                for (Map.Entry<Long, String> r : e.getValue().entrySet()) {
                    RecordId id = RecordId.parse(r.getValue());
                    TxnHistory.Txn txn = id == null ? null : txns.get(id.txnId());
                    if (id == null || txn == null || !belongs(id, txn, e.getKey())) {
                        continue; // a phantom, counted as such
                    }
                    RecordId before = last.get(id.producer());
                    if (before != null && id.compareOrder(before) < 0) {
                        finding(Anomaly.Type.REORDERED)
                                .add(
                                        1,
                                        "p" + e.getKey() + ": " + id.producer() + " " + before.txn() + "."
                                                + before.index() + "@" + lastOffset.get(id.producer()) + " before "
                                                + id.txn() + "." + id.index() + "@" + r.getKey());
                    } else if (before == null || id.compareOrder(before) > 0) {
                        last.put(id.producer(), id);
                        lastOffset.put(id.producer(), r.getKey());
                    }
                }
            }
        }

        Result result() {
            List<Anomaly> anomalies = new ArrayList<>();
            findings.forEach((type, f) -> anomalies.add(new Anomaly(
                    type, -1, f.count, String.join("; ", f.examples) + (f.count > f.examples.size() ? "; ..." : ""))));
            if (excusedDuplicates.count > 0) {
                anomalies.add(new Anomaly(
                                Anomaly.Type.DUPLICATED,
                                -1,
                                excusedDuplicates.count,
                                "in the read_uncommitted read only (invisible to read_committed): "
                                        + String.join("; ", excusedDuplicates.examples))
                        .excused());
            }
            Stats stats = new Stats(
                    history.txns().size(),
                    committed,
                    aborted,
                    unknown,
                    unknownVisible,
                    unknownInvisible,
                    committedRecords,
                    liveReads,
                    finalCommitted,
                    finalUncommitted);
            return new Result(anomalies, stats);
        }
    }
}
