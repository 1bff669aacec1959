package dev.strait.testkit.nemesis;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of one nemesis run: what was injected, what the workload got acknowledged, what the checker found.
 * {@code error} is set when the harness itself could not finish the run (no verdict then).
 */
public record RunReport(
        SystemKind system,
        long seed,
        Schedule schedule,
        Map<FaultKind, Integer> faultsInjected,
        long sent,
        long acknowledged,
        long notAcknowledged,
        long consumed,
        Map<String, Long> sendFailures,
        List<Anomaly> anomalies,
        long elapsedMs,
        @Nullable String error,
        @Nullable Path keptDirectory,
        String replay,
        TxnChecker.@Nullable Stats transactions) {

    /** A report of the idempotent workload (no transactions). */
    public RunReport(
            SystemKind system,
            long seed,
            Schedule schedule,
            Map<FaultKind, Integer> faultsInjected,
            long sent,
            long acknowledged,
            long notAcknowledged,
            long consumed,
            Map<String, Long> sendFailures,
            List<Anomaly> anomalies,
            long elapsedMs,
            @Nullable String error,
            @Nullable Path keptDirectory,
            String replay) {
        this(
                system,
                seed,
                schedule,
                faultsInjected,
                sent,
                acknowledged,
                notAcknowledged,
                consumed,
                sendFailures,
                anomalies,
                elapsedMs,
                error,
                keptDirectory,
                replay,
                null);
    }

    public RunReport {
        Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
        faults.putAll(faultsInjected);
        faultsInjected = faults;
        sendFailures = Map.copyOf(sendFailures);
        anomalies = List.copyOf(anomalies);
    }

    /** Anomalies counted by the records (or offsets, events) they concern. */
    public long anomalyCount() {
        return anomalies.stream()
                .filter(Anomaly::counted)
                .mapToLong(Anomaly::count)
                .sum();
    }

    /** Observations that are no verdict (Kafka's stale committed-offset reads), counted like anomalies. */
    public long observationCount() {
        return anomalies.stream()
                .filter(a -> !a.counted())
                .mapToLong(Anomaly::count)
                .sum();
    }

    public boolean clean() {
        return error == null && anomalies.stream().noneMatch(Anomaly::counted);
    }

    /** Faults per family, e.g. {@code pause 2, partition 3, kill 1}. */
    public static String byFamily(Map<FaultKind, Integer> faults) {
        Map<FaultKind.Family, Integer> families = new EnumMap<>(FaultKind.Family.class);
        faults.forEach((k, v) -> families.merge(k.family(), v, Integer::sum));
        return families.entrySet().stream()
                .map(e -> e.getKey().name().toLowerCase(Locale.ROOT) + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    public static String byKind(Map<FaultKind, Integer> faults) {
        Map<FaultKind, Integer> sorted = new EnumMap<>(FaultKind.class);
        sorted.putAll(faults);
        return sorted.entrySet().stream()
                .map(e -> e.getKey().flag() + " " + e.getValue())
                .collect(Collectors.joining(", "));
    }

    /** Several lines: the verdict line, one line per anomaly, the replay command. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        int faults =
                faultsInjected.values().stream().mapToInt(Integer::intValue).sum();
        sb.append(String.format(
                Locale.ROOT,
                "%s seed %d: %s, %.1f min, %d faults (%s), %,d acknowledged of %,d sent"
                        + " (%,d not acknowledged), %,d consumed, anomalies %d (reported, not counted: %d)",
                system.flag(),
                seed,
                error != null ? "HARNESS ERROR" : clean() ? "ok" : "ANOMALIES",
                elapsedMs / 60_000.0,
                faults,
                byKind(faultsInjected),
                acknowledged,
                sent,
                notAcknowledged,
                consumed,
                anomalyCount(),
                observationCount()));
        if (transactions != null) {
            sb.append("\n  ").append(transactions.describe());
        }
        if (!sendFailures.isEmpty()) {
            sb.append("\n  send failures: ").append(sendFailures);
        }
        for (Anomaly anomaly : anomalies) {
            sb.append("\n  ").append(anomaly.counted() ? "" : "(not counted) ").append(anomaly);
        }
        if (error != null) {
            sb.append("\n  error: ").append(error);
        }
        if (keptDirectory != null) {
            sb.append("\n  node logs and data kept in ").append(keptDirectory);
        }
        if (!clean()) {
            sb.append("\n  replay: ").append(replay);
        }
        return sb.toString();
    }
}
