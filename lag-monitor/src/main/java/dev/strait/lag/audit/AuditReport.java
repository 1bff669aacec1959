package dev.strait.lag.audit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** What an audit of source offset ranges against the target found. Immutable. */
public record AuditReport(List<PartitionAudit> partitions) {
    public enum Kind {
        MISSING,
        DUPLICATED,
        REORDERED,
        ALTERED
    }

    /** One anomaly, named by the source record it concerns. */
    public record Finding(Kind kind, String topic, int partition, long sourceOffset, String detail) {}

    /**
     * One source partition's range [fromOffset, toOffset) and what the target holds of it.
     *
     * @param notCopiedByDesign source records the mirror does not copy on purpose: copies of the target's own
     *                          records, which loop prevention drops; not findings
     * @param droppedByHandler  source records the mirror's message handler writes nothing to this topic for (given the
     *                          handler); not findings
     * @param removedOnTarget   missing copies that the target's own retention or compaction removed; not findings
     */
    public record PartitionAudit(
            String topic,
            int partition,
            long fromOffset,
            long toOffset,
            long sourceRecords,
            long targetRecords,
            byte[] sourceDigest,
            byte[] targetDigest,
            List<Finding> findings,
            long notCopiedByDesign,
            long droppedByHandler,
            long removedOnTarget) {
        public PartitionAudit {
            findings = List.copyOf(findings);
        }

        public boolean digestsEqual() {
            return Arrays.equals(sourceDigest, targetDigest);
        }

        public long count(Kind kind) {
            return findings.stream().filter(f -> f.kind() == kind).count();
        }
    }

    public AuditReport {
        partitions = List.copyOf(partitions);
    }

    /** True when nothing is missing, duplicated, reordered or altered. */
    public boolean clean() {
        return partitions.stream().allMatch(p -> p.findings().isEmpty());
    }

    public List<Finding> findings() {
        List<Finding> out = new ArrayList<>();
        partitions.forEach(p -> out.addAll(p.findings()));
        return out;
    }

    public String table(int maxFindings) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "%-30s %5s %22s %8s %8s %8s %8s %8s %8s %7s%n",
                "topic",
                "part",
                "source offsets",
                "source",
                "target",
                "missing",
                "dups",
                "reorder",
                "altered",
                "digest"));
        for (PartitionAudit p : partitions) {
            b.append(String.format(
                    Locale.ROOT,
                    "%-30s %5d %22s %8d %8d %8d %8d %8d %8d %7s%n",
                    p.topic(),
                    p.partition(),
                    "[" + p.fromOffset() + ", " + p.toOffset() + ")",
                    p.sourceRecords(),
                    p.targetRecords(),
                    p.count(Kind.MISSING),
                    p.count(Kind.DUPLICATED),
                    p.count(Kind.REORDERED),
                    p.count(Kind.ALTERED),
                    p.digestsEqual() ? "equal" : "DIFFER"));
        }
        List<Finding> all = findings();
        all.stream()
                .limit(maxFindings)
                .forEach(f -> b.append(String.format(
                        Locale.ROOT,
                        "%s %s-%d@%d%s%n",
                        f.kind(),
                        f.topic(),
                        f.partition(),
                        f.sourceOffset(),
                        f.detail().isEmpty() ? "" : " (" + f.detail() + ")")));
        if (all.size() > maxFindings) {
            b.append("... and ").append(all.size() - maxFindings).append(" more findings\n");
        }
        long byDesign =
                partitions.stream().mapToLong(PartitionAudit::notCopiedByDesign).sum();
        long dropped =
                partitions.stream().mapToLong(PartitionAudit::droppedByHandler).sum();
        long removed =
                partitions.stream().mapToLong(PartitionAudit::removedOnTarget).sum();
        if (byDesign > 0 || dropped > 0 || removed > 0) {
            b.append(String.format(
                    Locale.ROOT,
                    "not findings: %d source records not copied by design (loop prevention), "
                            + "%d dropped by the message handler, %d copies removed by the target's own retention or compaction%n",
                    byDesign,
                    dropped,
                    removed));
        }
        b.append(clean() ? "audit: clean\n" : "audit: " + all.size() + " findings\n");
        return b.toString();
    }
}
