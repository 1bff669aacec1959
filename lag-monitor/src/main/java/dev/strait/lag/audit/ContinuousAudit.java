package dev.strait.lag.audit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.strait.lag.sample.PartitionLag;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit as the daemon runs it: each round covers, per partition, what the mirror committed since the
 * previous round (at most {@code maxRecordsPerPartition} records back from the committed offset on the first
 * round), so every committed record is audited once. Findings are logged as alerts, counted, and the latest
 * are kept for /status.
 *
 * <p>Not thread-safe: the sampling thread owns it; {@link #summary()} is an immutable snapshot.
 */
public final class ContinuousAudit {
    private static final Logger LOGGER = LoggerFactory.getLogger(ContinuousAudit.class);
    private static final int KEPT_FINDINGS = 50;

    /** What /status shows of the audit. Immutable. */
    public record Summary(long rounds, long recordsAudited, Map<AuditReport.Kind, Long> findingsByKind,
                          List<AuditReport.Finding> latestFindings) {
        public Summary {
            findingsByKind = Map.copyOf(findingsByKind);
            latestFindings = List.copyOf(latestFindings);
        }
    }

    private final Auditor auditor;
    private final long maxRecordsPerPartition;
    private final Map<TopicPartition, Long> auditedTo = new HashMap<>();
    private final Map<AuditReport.Kind, Long> totals = new TreeMap<>();
    private final List<AuditReport.Finding> latest = new ArrayList<>();
    private long rounds;
    private long recordsAudited;
    private volatile Summary summary = new Summary(0, 0, Map.of(), List.of());

    public ContinuousAudit(Auditor auditor, long maxRecordsPerPartition) {
        this.auditor = auditor;
        this.maxRecordsPerPartition = maxRecordsPerPartition;
    }

    /** Audits what was committed since the last round, for the partitions of the latest lag sample. */
    public void round(List<PartitionLag> partitions) {
        Map<String, Map<Integer, long[]>> plan = new TreeMap<>();
        for (PartitionLag p : partitions) {
            if (p.committed() < 0) {
                continue;
            }
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            long to = p.committed();
            long from = Math.max(Math.max(0, p.sourceStart()), auditedTo.getOrDefault(tp, to - maxRecordsPerPartition));
            from = Math.max(from, to - maxRecordsPerPartition);
            if (to > from) {
                plan.computeIfAbsent(p.topic(), k -> new TreeMap<>()).put(p.partition(), new long[] {from, to});
            }
        }
        for (Map.Entry<String, Map<Integer, long[]>> e : plan.entrySet()) {
            AuditReport report = auditor.audit(e.getKey(), e.getValue());
            for (AuditReport.PartitionAudit pa : report.partitions()) {
                recordsAudited += pa.sourceRecords();
                auditedTo.put(new TopicPartition(pa.topic(), pa.partition()), pa.toOffset());
                for (AuditReport.Finding f : pa.findings()) {
                    totals.merge(f.kind(), 1L, Long::sum);
                    latest.add(f);
                    LOGGER.warn("ALERT audit: {} {}-{}@{}{}", f.kind(), f.topic(), f.partition(), f.sourceOffset(),
                        f.detail().isEmpty() ? "" : " (" + f.detail() + ")");
                }
            }
        }
        while (latest.size() > KEPT_FINDINGS) {
            latest.remove(0);
        }
        rounds++;
        summary = new Summary(rounds, recordsAudited, totals, latest);
    }

    public Summary summary() {
        return summary;
    }
}
