package dev.strait.lag.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.lag.audit.AuditReport;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.lag.status.StatusEvaluator.PartitionStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The /status JSON: hostile names read back as written, and the field names and order users' scripts know. */
public class StatusFormatJsonTest {
    /** Quotes, backslash, every control character, non-ASCII and an HTML closing tag. */
    public static String hostile() {
        StringBuilder b = new StringBuilder("g \"quoted\" back\\slash </script> é€😀 \u2028");
        for (char c = 0; c < 0x20; c++) {
            b.append(c);
        }
        return b.toString();
    }

    /** A group status whose names (group aside) and texts all read {@code name}. */
    public static GroupStatus status(String name, Status status) {
        PartitionLag lag = new PartitionLag(name, 3, name, 1, 20, 18, 15, 16, 17, 2, 5, 4, 1500);
        LagSnapshot snapshot = new LagSnapshot(1_000, 7, List.of(lag), List.of(name), List.of(name), 2, 3);
        return new GroupStatus(status, List.of(new PartitionStatus(lag, status, name, true)), true, snapshot);
    }

    @Test
    void aHostileGroupTopicAndReasonRoundTrip() throws Exception {
        String name = hostile();
        ContinuousAudit.Summary audit = new ContinuousAudit.Summary(
                1,
                10,
                Map.of(AuditReport.Kind.MISSING, 1L),
                List.of(new AuditReport.Finding(AuditReport.Kind.MISSING, name, 3, 12, name)),
                0,
                0,
                0,
                0,
                0);

        JsonNode read = new ObjectMapper().readTree(StatusFormat.json(name, status(name, Status.WARN), audit));

        assertThat(read.get("group").textValue()).isEqualTo(name);
        assertThat(read.get("errors").get(0).textValue()).isEqualTo(name);
        assertThat(read.get("warnings").get(0).textValue()).isEqualTo(name);
        JsonNode p = read.get("partitions").get(0);
        assertThat(p.get("topic").textValue()).isEqualTo(name);
        assertThat(p.get("targetTopic").textValue()).isEqualTo(name);
        assertThat(p.get("reason").textValue()).isEqualTo(name);
        assertThat(read.get("audit").get("latest").get(0).get("topic").textValue())
                .isEqualTo(name);
    }

    @Test
    void keepsTheFieldNamesAndOrder() {
        String json = StatusFormat.json(
                "g",
                status("t", Status.WARN),
                new ContinuousAudit.Summary(
                        1,
                        10,
                        Map.of(AuditReport.Kind.MISSING, 1L),
                        List.of(new AuditReport.Finding(AuditReport.Kind.MISSING, "t", 3, 12, "d")),
                        2,
                        3,
                        4,
                        5,
                        6));

        assertThat(json)
                .isEqualTo("{\"group\":\"g\",\"status\":\"WARN\",\"thresholdCrossed\":true,\"sampledAtMs\":1000,"
                        + "\"cycleMs\":7,\"sourceCalls\":2,\"targetCalls\":3,\"errors\":[\"t\"],\"warnings\":[\"t\"],"
                        + "\"partitions\":[{\"topic\":\"t\",\"partition\":3,\"targetTopic\":\"t\",\"status\":\"WARN\","
                        + "\"reason\":\"t\",\"sourceStartOffset\":1,\"sourceEndOffset\":20,\"targetEndOffset\":18,"
                        + "\"committedOffset\":15,\"mirrorPosition\":16,\"lastMirroredSourceOffset\":17,"
                        + "\"exactLag\":2,\"committedLag\":5,\"consumerLag\":4,\"timeLagMs\":1500,"
                        + "\"thresholdCrossed\":true}],"
                        + "\"audit\":{\"rounds\":1,\"recordsAudited\":10,\"recordsBehind\":2,\"recordsNotCovered\":3,"
                        + "\"notCopiedByDesign\":4,\"droppedByHandler\":5,\"removedOnTarget\":6,"
                        + "\"findings\":{\"MISSING\":1},"
                        + "\"latest\":[{\"kind\":\"MISSING\",\"topic\":\"t\",\"partition\":3,\"sourceOffset\":12}]}}");
    }
}
