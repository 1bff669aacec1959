package dev.strait.testkit.nemesis;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The oracle: judges a history against the log read back after healing. Pure (no clock, no I/O), so it is tested
 * on hand-made histories.
 * <ul>
 *   <li>every acknowledged record is in the log exactly once, at the offset it was acknowledged at;</li>
 *   <li>no two values were ever seen at one offset (acknowledgements, consumer reads, the final read);</li>
 *   <li>nothing a consumer read has vanished (its offset past the log end, or a gap in the log);</li>
 *   <li>acknowledged records of one producer are in the log in the order they were produced;</li>
 *   <li>committed group offsets never go backwards: an acknowledged commit is never below one acknowledged before it
 *       began, and the group's final committed offset is not below any acknowledged commit. (OffsetFetch answers
 *       that are lower than what was acknowledged before are stale reads: counted for Strait, reported but not
 *       counted for Kafka 4.1.1, which gives them by design for a moment after its group coordinator moves, because
 *       it serves reads as of the new leader's high watermark; see the package documentation and {@link Rules});</li>
 *   <li>{@link #checkReplicas}: after healing, every replica holds below the high watermark exactly what the leader
 *       holds, record for record (offset, key, value, headers).</li>
 * </ul>
 */
public final class Checker {
    private static final int EXAMPLES = 5;

    private Checker() {}

    /** One record of the log as read back after healing. */
    public record LogRecord(long offset, String value) {}

    /** What a system is held to beyond the common line. */
    public record Rules(boolean staleOffsetReadsCount) {
        /** Strait serves a committed offset only once the offsets partition's high watermark passed it. */
        public static final Rules STRAIT = new Rules(true);
        /** Kafka 4.1.1 answers OffsetFetch below an acknowledged commit by design (see the package documentation). */
        public static final Rules KAFKA = new Rules(false);

        public static Rules of(SystemKind system) {
            return system == SystemKind.KAFKA ? KAFKA : STRAIT;
        }
    }

    /** One record as a replica stores it: offset, key, value and headers (rendered to compare them). */
    public record StoredRecord(
            long offset, @Nullable String key, @Nullable String value, String headers) {}

    /**
     * One partition's replicas as read from the nodes' log files after healing: the leader, the high watermark it
     * reported, and each replica's records (the leader's among them).
     */
    public record ReplicaLogs(int leader, long highWatermark, Map<Integer, List<StoredRecord>> byNode) {
        public ReplicaLogs {
            byNode = Map.copyOf(byNode);
        }
    }

    /** {@link #check(History.Snapshot, Map, Rules)} with Strait's rules. */
    public static List<Anomaly> check(History.Snapshot history, Map<Integer, List<LogRecord>> log) {
        return check(history, log, Rules.STRAIT);
    }

    /** Replicas below the high watermark must hold what the leader holds, record for record. */
    public static List<Anomaly> checkReplicas(Map<Integer, ReplicaLogs> partitions) {
        List<Anomaly> anomalies = new ArrayList<>();
        for (Map.Entry<Integer, ReplicaLogs> e : new TreeMap<>(partitions).entrySet()) {
            ReplicaLogs replicas = e.getValue();
            long hw = replicas.highWatermark();
            Map<Long, StoredRecord> leader =
                    belowHighWatermark(replicas.byNode().getOrDefault(replicas.leader(), List.of()), hw);
            long differences = 0;
            List<String> examples = new ArrayList<>();
            for (Map.Entry<Integer, List<StoredRecord>> r : new TreeMap<>(replicas.byNode()).entrySet()) {
                if (r.getKey() == replicas.leader()) {
                    continue;
                }
                Map<Long, StoredRecord> replica = belowHighWatermark(r.getValue(), hw);
                TreeSet<Long> offsets = new TreeSet<>(leader.keySet());
                offsets.addAll(replica.keySet());
                for (long offset : offsets) {
                    StoredRecord mine = leader.get(offset);
                    StoredRecord theirs = replica.get(offset);
                    if (mine != null && mine.equals(theirs)) {
                        continue;
                    }
                    differences++;
                    if (examples.size() < EXAMPLES) {
                        examples.add("node " + r.getKey() + " at offset " + offset + ": "
                                + (theirs == null
                                        ? "missing (leader " + replicas.leader() + " has " + show(mine) + ")"
                                        : mine == null
                                                ? show(theirs) + ", which leader " + replicas.leader() + " lacks"
                                                : show(theirs) + ", leader " + replicas.leader() + " has "
                                                        + show(mine)));
                    }
                }
            }
            if (differences > 0) {
                anomalies.add(new Anomaly(
                        Anomaly.Type.REPLICA_DIVERGED,
                        e.getKey(),
                        differences,
                        "below the high watermark " + hw + ": " + String.join("; ", examples)));
            }
        }
        return anomalies;
    }

    private static Map<Long, StoredRecord> belowHighWatermark(List<StoredRecord> records, long hw) {
        Map<Long, StoredRecord> byOffset = new TreeMap<>();
        for (StoredRecord r : records) {
            if (r.offset() < hw) {
                byOffset.put(r.offset(), r);
            }
        }
        return byOffset;
    }

    private static String show(@Nullable StoredRecord r) {
        if (r == null) {
            return "nothing";
        }
        return r.value() + (r.key() == null ? "" : " key " + r.key()) + " headers " + r.headers();
    }

    public static List<Anomaly> check(History.Snapshot history, Map<Integer, List<LogRecord>> log, Rules rules) {
        List<Anomaly> anomalies = new ArrayList<>();
        Set<Integer> partitions = new TreeSet<>(log.keySet());
        history.acks().forEach(a -> partitions.add(a.partition()));
        partitions.addAll(history.consumed().keySet());
        Map<Integer, List<History.Ack>> acksByPartition =
                history.acks().stream().collect(Collectors.groupingBy(History.Ack::partition));
        for (int p : partitions) {
            checkPartition(
                    p,
                    acksByPartition.getOrDefault(p, List.of()),
                    log.getOrDefault(p, List.of()),
                    history.consumed().getOrDefault(p, Map.of()),
                    history.readConflicts().stream()
                            .filter(c -> c.partition() == p)
                            .toList(),
                    anomalies);
        }
        checkCommittedOffsets(history, rules, anomalies);
        return anomalies;
    }

    private static void checkPartition(
            int p,
            List<History.Ack> acks,
            List<LogRecord> log,
            Map<Long, String> consumed,
            List<History.ReadConflict> readConflicts,
            List<Anomaly> anomalies) {
        TreeMap<Long, String> valueAt = new TreeMap<>();
        Map<String, List<Long>> positions = new HashMap<>();
        for (LogRecord r : log) {
            valueAt.put(r.offset(), r.value());
            positions.computeIfAbsent(r.value(), v -> new ArrayList<>(1)).add(r.offset());
        }
        long logEnd = valueAt.isEmpty() ? 0 : valueAt.lastKey() + 1;

        // Duplicates: a value at more than one offset.
        List<String> duplicated = new ArrayList<>();
        long extraCopies = 0;
        for (Map.Entry<String, List<Long>> e : positions.entrySet()) {
            if (e.getValue().size() > 1) {
                extraCopies += e.getValue().size() - 1;
                if (duplicated.size() < EXAMPLES) {
                    duplicated.add(e.getKey() + " at " + e.getValue());
                }
            }
        }
        if (extraCopies > 0) {
            anomalies.add(new Anomaly(
                    Anomaly.Type.DUPLICATED,
                    p,
                    extraCopies,
                    "records in the log more than once, e.g. " + String.join("; ", duplicated)));
        }

        // Acknowledged records: present, once, at their offset.
        List<History.Ack> sorted = new ArrayList<>(acks);
        sorted.sort(Comparator.comparingLong(History.Ack::offset));
        List<History.Ack> lost = new ArrayList<>();
        List<History.Ack> intact = new ArrayList<>();
        List<String> moved = new ArrayList<>();
        long movedCount = 0;
        for (History.Ack ack : sorted) {
            List<Long> at = positions.get(ack.value());
            if (at == null) {
                lost.add(ack);
            } else if (at.contains(ack.offset())) {
                intact.add(ack);
            } else {
                movedCount++;
                if (moved.size() < EXAMPLES) {
                    moved.add(ack.value() + " acknowledged at " + ack.offset() + ", found at " + at);
                }
            }
        }
        if (!lost.isEmpty()) {
            anomalies.add(new Anomaly(Anomaly.Type.LOST, p, lost.size(), describeLost(lost, valueAt, logEnd)));
        }
        if (movedCount > 0) {
            anomalies.add(new Anomaly(Anomaly.Type.MOVED, p, movedCount, String.join("; ", moved)));
        }

        // Every offset: at most one value, whoever saw it.
        Map<Long, Map<String, Set<String>>> seen = new TreeMap<>();
        for (History.Ack ack : acks) {
            see(seen, ack.offset(), ack.value(), "acked");
        }
        consumed.forEach((o, v) -> see(seen, o, v, "consumed"));
        for (History.ReadConflict c : readConflicts) {
            see(seen, c.offset(), c.first(), "consumed");
            see(seen, c.offset(), c.second(), "consumed");
        }
        valueAt.forEach((o, v) -> see(seen, o, v, "read back"));
        List<String> conflicts = new ArrayList<>();
        long conflictCount = 0;
        for (Map.Entry<Long, Map<String, Set<String>>> e : seen.entrySet()) {
            if (e.getValue().size() > 1) {
                conflictCount++;
                if (conflicts.size() < EXAMPLES) {
                    conflicts.add("offset " + e.getKey() + ": "
                            + e.getValue().entrySet().stream()
                                    .map(v -> String.join("+", v.getValue()) + " " + v.getKey())
                                    .collect(Collectors.joining(", ")));
                }
            }
        }
        if (conflictCount > 0) {
            anomalies.add(new Anomaly(Anomaly.Type.OFFSET_CONFLICT, p, conflictCount, String.join("; ", conflicts)));
        }

        // What consumers read must still be there.
        List<Long> vanished = consumed.keySet().stream()
                .filter(o -> !valueAt.containsKey(o))
                .sorted()
                .toList();
        if (!vanished.isEmpty()) {
            List<Long> gaps = vanished.stream().filter(o -> o < logEnd).toList();
            anomalies.add(new Anomaly(
                    Anomaly.Type.VANISHED,
                    p,
                    vanished.size(),
                    "consumed at offsets " + ranges(vanished) + ", but the log now ends at " + logEnd
                            + (gaps.isEmpty() ? "" : " and offsets " + ranges(gaps) + " are a gap in it")));
        }

        // Order per producer, among the acknowledged records that are where they were acknowledged (the others are
        // reported above): by number, offsets rise; in the log, numbers rise.
        long reordered = 0;
        List<String> reorderedExamples = new ArrayList<>();
        Map<String, List<History.Ack>> byProducer =
                intact.stream().collect(Collectors.groupingBy(History.Ack::producer));
        Set<String> ackedValues = new java.util.HashSet<>();
        for (Map.Entry<String, List<History.Ack>> e : byProducer.entrySet()) {
            List<History.Ack> list = new ArrayList<>(e.getValue());
            list.sort(Comparator.comparingLong(History.Ack::number));
            for (int i = 1; i < list.size(); i++) {
                if (list.get(i).offset() <= list.get(i - 1).offset()) {
                    reordered++;
                    if (reorderedExamples.size() < EXAMPLES) {
                        reorderedExamples.add(list.get(i - 1).value() + " acknowledged at "
                                + list.get(i - 1).offset() + " but "
                                + list.get(i).value() + " at " + list.get(i).offset());
                    }
                }
            }
            list.forEach(a -> ackedValues.add(a.value()));
        }
        Map<String, Long> lastNumber = new HashMap<>();
        Map<String, Long> lastOffset = new HashMap<>();
        for (Map.Entry<Long, String> e : valueAt.entrySet()) {
            if (!ackedValues.contains(e.getValue())) {
                continue;
            }
            String[] parts = e.getValue().split(":");
            long number = Long.parseLong(parts[2]);
            Long previous = lastNumber.put(parts[0], number);
            Long previousOffset = lastOffset.put(parts[0], e.getKey());
            if (previous != null && number < previous) { // equal: a duplicate, reported as such
                reordered++;
                if (reorderedExamples.size() < EXAMPLES) {
                    reorderedExamples.add("log holds " + parts[0] + " #" + previous + " at " + previousOffset
                            + " before #" + number + " at " + e.getKey());
                }
            }
        }
        if (reordered > 0) {
            anomalies.add(new Anomaly(Anomaly.Type.REORDERED, p, reordered, String.join("; ", reorderedExamples)));
        }
    }

    private static void see(Map<Long, Map<String, Set<String>>> seen, long offset, String value, String how) {
        seen.computeIfAbsent(offset, o -> new java.util.LinkedHashMap<>())
                .computeIfAbsent(value, v -> new LinkedHashSet<>())
                .add(how);
    }

    private static String describeLost(List<History.Ack> lost, TreeMap<Long, String> valueAt, long logEnd) {
        List<Long> offsets = lost.stream().map(History.Ack::offset).toList();
        long first = lost.stream().mapToLong(History.Ack::atMs).min().orElse(0);
        long last = lost.stream().mapToLong(History.Ack::atMs).max().orElse(0);
        StringBuilder sb = new StringBuilder("acknowledged at offsets ")
                .append(ranges(offsets))
                .append(String.format(
                        java.util.Locale.ROOT, " (between %.1f s and %.1f s)", first / 1000.0, last / 1000.0))
                .append(", not in the log; e.g. ");
        for (int i = 0; i < Math.min(EXAMPLES, lost.size()); i++) {
            History.Ack a = lost.get(i);
            String now = valueAt.get(a.offset());
            sb.append(i == 0 ? "" : "; ")
                    .append(a.value())
                    .append(" at ")
                    .append(a.offset())
                    .append(" (now ")
                    .append(now != null ? now : a.offset() >= logEnd ? "past the log end " + logEnd : "a gap")
                    .append(')');
        }
        return sb.toString();
    }

    /** {@code 2146-2174, 2301} from sorted offsets; at most ten ranges. */
    static String ranges(List<Long> sortedOffsets) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int total = 0;
        while (i < sortedOffsets.size()) {
            int j = i;
            while (j + 1 < sortedOffsets.size() && sortedOffsets.get(j + 1) <= sortedOffsets.get(j) + 1) {
                j++;
            }
            total++;
            if (out.size() < 10) {
                out.add(
                        i == j
                                ? Long.toString(sortedOffsets.get(i))
                                : sortedOffsets.get(i) + "-" + sortedOffsets.get(j));
            }
            i = j + 1;
        }
        return String.join(", ", out) + (total > out.size() ? " and " + (total - out.size()) + " more ranges" : "");
    }

    /**
     * Acknowledged commits never go back (one that began after another was acknowledged is not lower), and the final
     * committed offset is not below any acknowledged commit. OffsetFetch answers below what was acknowledged or read
     * before they began are {@link Anomaly.Type#STALE_OFFSET_READ}: counted under Strait's rules, excused under
     * Kafka's.
     */
    private static void checkCommittedOffsets(History.Snapshot history, Rules rules, List<Anomaly> anomalies) {
        Map<Integer, List<History.OffsetEvent>> byPartition = history.offsetEvents().stream()
                .collect(Collectors.groupingBy(History.OffsetEvent::partition, TreeMap::new, Collectors.toList()));
        for (Map.Entry<Integer, List<History.OffsetEvent>> e : byPartition.entrySet()) {
            int p = e.getKey();
            List<History.OffsetEvent> commits =
                    e.getValue().stream().filter(History.OffsetEvent::acked).toList();
            List<History.OffsetEvent> reads =
                    e.getValue().stream().filter(x -> !x.acked()).toList();
            List<String> examples = new ArrayList<>();
            long regressions = 0;
            for (History.OffsetEvent[] pair : wentBack(commits, commits)) {
                regressions++;
                if (examples.size() < EXAMPLES) {
                    examples.add(describe(pair[0], history.startNanos()) + " after "
                            + describe(pair[1], history.startNanos()));
                }
            }
            Long last = history.finalCommitted().get(p);
            History.OffsetEvent highest = commits.stream()
                    .max(Comparator.comparingLong(History.OffsetEvent::offset))
                    .orElse(null);
            if (last != null && highest != null && last < highest.offset()) {
                regressions++;
                examples.add("the final committed offset is " + last + ", below the "
                        + describe(highest, history.startNanos()));
            }
            if (regressions > 0) {
                anomalies.add(new Anomaly(Anomaly.Type.COMMIT_REGRESSION, p, regressions, String.join("; ", examples)));
            }
            List<History.OffsetEvent[]> stale = wentBack(reads, e.getValue());
            if (!stale.isEmpty()) {
                Anomaly staleReads = new Anomaly(
                        Anomaly.Type.STALE_OFFSET_READ,
                        p,
                        stale.size(),
                        stale.stream()
                                .limit(EXAMPLES)
                                .map(pair -> describe(pair[0], history.startNanos()) + " after "
                                        + describe(pair[1], history.startNanos()))
                                .collect(Collectors.joining("; ")));
                anomalies.add(rules.staleOffsetReadsCount() ? staleReads : staleReads.excused());
            }
        }
    }

    /** Each event of {@code events} whose offset is below the highest of {@code earlier} that ended before it began. */
    private static List<History.OffsetEvent[]> wentBack(
            List<History.OffsetEvent> events, List<History.OffsetEvent> earlier) {
        List<History.OffsetEvent> byStart = new ArrayList<>(events);
        byStart.sort(Comparator.comparingLong(History.OffsetEvent::startNanos));
        List<History.OffsetEvent> byEnd = new ArrayList<>(earlier);
        byEnd.sort(Comparator.comparingLong(History.OffsetEvent::endNanos));
        List<History.OffsetEvent[]> found = new ArrayList<>();
        int next = 0;
        History.OffsetEvent highest = null;
        for (History.OffsetEvent event : byStart) {
            while (next < byEnd.size() && byEnd.get(next).endNanos() < event.startNanos()) {
                History.OffsetEvent done = byEnd.get(next++);
                if (highest == null || done.offset() > highest.offset()) {
                    highest = done;
                }
            }
            if (highest != null && event.offset() < highest.offset()) {
                found.add(new History.OffsetEvent[] {event, highest});
            }
        }
        return found;
    }

    private static String describe(History.OffsetEvent event, long startNanos) {
        return String.format(
                java.util.Locale.ROOT,
                "%s %d (%s, %.1f-%.1f s)",
                event.acked() ? "commit of" : "committed offset read",
                event.offset(),
                event.who(),
                (event.startNanos() - startNanos) / 1e9,
                (event.endNanos() - startNanos) / 1e9);
    }
}
