package dev.strait.lag.audit;

import dev.strait.lag.sample.PartitionLag;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The audit as the daemon runs it: each round covers, per partition, what the mirror committed since the
 * previous round, at most {@code maxRecordsPerPartition} records: a round that cannot cover everything goes
 * on where it stopped next round, so every record committed while the audit runs is audited once, and the
 * summary says how far behind it is. The first round starts at most {@code maxRecordsPerPartition} records
 * back from the committed offset; what was committed before that is counted as not covered. Findings are
 * logged as alerts, counted, and the latest are kept for /status.
 *
 * <p>Not thread-safe: the sampling thread owns it; {@link #summary()} is an immutable snapshot.
 */
public final class ContinuousAudit {
    private static final Logger LOGGER = LoggerFactory.getLogger(ContinuousAudit.class);
    private static final int KEPT_FINDINGS = 50;

    /** What /status shows of the audit. Immutable. */
    public record Summary(
            long rounds,
            long recordsAudited,
            Map<AuditReport.Kind, Long> findingsByKind,
            List<AuditReport.Finding> latestFindings,
            long recordsBehind,
            long recordsNotCovered,
            long notCopiedByDesign,
            long droppedByHandler,
            long removedOnTarget) {
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
    private long notCovered;
    private long byDesign;
    private long droppedByHandler;
    private long removed;
    private volatile Summary summary = new Summary(0, 0, Map.of(), List.of(), 0, 0, 0, 0, 0);

    public ContinuousAudit(Auditor auditor, long maxRecordsPerPartition) {
        this.auditor = auditor;
        this.maxRecordsPerPartition = maxRecordsPerPartition;
    }

    /** Audits what was committed since the last round, for the partitions of the latest lag sample. */
    public void round(List<PartitionLag> partitions) {
        Map<String, Map<Integer, long[]>> plan = new TreeMap<>();
        Map<TopicPartition, Long> committedNow = new HashMap<>();
        for (PartitionLag p : partitions) {
            if (p.committed() < 0) {
                continue;
            }
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            committedNow.put(tp, p.committed());
            long start = Math.max(0, p.sourceStart());
            Long done = auditedTo.get(tp);
            long from;
            if (done == null) {
                from = Math.max(start, p.committed() - maxRecordsPerPartition);
                notCovered += from - start;
            } else {
                from = Math.max(start, done);
            }
            long to = Math.min(p.committed(), from + maxRecordsPerPartition);
            if (to > from) {
                plan.computeIfAbsent(p.topic(), k -> new TreeMap<>()).put(p.partition(), new long[] {from, to});
            } else if (done == null) {
                auditedTo.put(tp, from);
            }
        }
        for (Map.Entry<String, Map<Integer, long[]>> e : plan.entrySet()) {
            AuditReport report = auditor.audit(e.getKey(), e.getValue());
            for (AuditReport.PartitionAudit pa : report.partitions()) {
                recordsAudited += pa.sourceRecords();
                byDesign += pa.notCopiedByDesign();
                droppedByHandler += pa.droppedByHandler();
                removed += pa.removedOnTarget();
                auditedTo.put(new TopicPartition(pa.topic(), pa.partition()), pa.toOffset());
                for (AuditReport.Finding f : pa.findings()) {
                    totals.merge(f.kind(), 1L, Long::sum);
                    latest.add(f);
                    LOGGER.warn(
                            "ALERT audit: {} {}-{}@{}{}",
                            f.kind(),
                            f.topic(),
                            f.partition(),
                            f.sourceOffset(),
                            f.detail().isEmpty() ? "" : " (" + f.detail() + ")");
                }
            }
        }
        long behind = 0;
        for (Map.Entry<TopicPartition, Long> e : committedNow.entrySet()) {
            behind += Math.max(0, e.getValue() - auditedTo.getOrDefault(e.getKey(), e.getValue()));
        }
        if (behind > 0) {
            LOGGER.info(
                    "Audit is {} committed records behind (at most {} per partition per round); it catches up next "
                            + "rounds",
                    behind,
                    maxRecordsPerPartition);
        }
        while (latest.size() > KEPT_FINDINGS) {
            latest.remove(0);
        }
        rounds++;
        summary = new Summary(
                rounds, recordsAudited, totals, latest, behind, notCovered, byDesign, droppedByHandler, removed);
    }

    public Summary summary() {
        return summary;
    }
}
