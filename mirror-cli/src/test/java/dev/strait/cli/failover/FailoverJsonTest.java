package dev.strait.cli.failover;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.mirror.failover.FailbackPlan;
import dev.strait.mirror.failover.FailoverPlan;
import dev.strait.mirror.failover.FailoverPlanner;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** failover --json and failback --json: hostile names read back as written, field names and order kept. */
class FailoverJsonTest {
    /** Quotes, backslash, every control character, non-ASCII and an HTML closing tag. */
    static String hostile() {
        StringBuilder b = new StringBuilder("n \"quoted\" back\\slash </script> é€😀 \u2028");
        for (char c = 0; c < 0x20; c++) {
            b.append(c);
        }
        return b.toString();
    }

    private static FailoverPlan failoverPlan(String name) {
        FailoverPlan.SourceState s = new FailoverPlan.SourceState(new TopicPartition(name, 1), 5, 9, 2, true, 1.5);
        FailoverPlan.PartitionPlan p =
                new FailoverPlan.PartitionPlan(new TopicPartition(name, 2), 7, 3, 4, false, List.of(s));
        FailoverPlan.GroupPlan g = new FailoverPlan.GroupPlan(name, 0, 123, List.of(p), name);
        return new FailoverPlan(true, name, name, 456, List.of(g), List.of(name));
    }

    private static FailbackPlan failbackPlan(String name) {
        FailbackPlan.PartitionBack pb = new FailbackPlan.PartitionBack(0, 1, 2, 3, 4, 5, 6, 7, 8, 0.25);
        FailbackPlan.TopicBack t = new FailbackPlan.TopicBack(name, name, 99, List.of(pb));
        FailbackPlan.PartitionGroupBack pg = new FailbackPlan.PartitionGroupBack(
                new TopicPartition(name, 0), new TopicPartition(name, 1), 10, 11, name, 12);
        FailbackPlan.GroupBack g = new FailbackPlan.GroupBack(name, 1, 2, List.of(pg), name);
        return new FailbackPlan(name, name, 77, List.of(t), List.of(g), List.of(name));
    }

    @Test
    void failoverJsonRoundTripsAHostileGroupAndTopic() throws Exception {
        String name = hostile();
        Map<String, FailoverPlanner.GroupResult> results =
                Map.of(name, new FailoverPlanner.GroupResult(name, FailoverPlanner.Outcome.MOVED, name));

        JsonNode read = new ObjectMapper().readTree(PlanText.json(failoverPlan(name), true, results));

        assertThat(read.get("sourceCluster").textValue()).isEqualTo(name);
        assertThat(read.get("targetCluster").textValue()).isEqualTo(name);
        assertThat(read.get("warnings").get(0).textValue()).isEqualTo(name);
        JsonNode g = read.get("groups").get(0);
        assertThat(g.get("group").textValue()).isEqualTo(name);
        assertThat(g.get("problem").textValue()).isEqualTo(name);
        assertThat(g.get("message").textValue()).isEqualTo(name);
        assertThat(g.get("partitions").get(0).get("topic").textValue()).isEqualTo(name);
        assertThat(g.get("partitions").get(0).get("sources").get(0).get("topic").textValue())
                .isEqualTo(name);
    }

    @Test
    void failbackJsonRoundTripsAHostileGroupAndTopic() throws Exception {
        String name = hostile();

        JsonNode read = new ObjectMapper().readTree(FailbackCommand.json(failbackPlan(name), false));

        assertThat(read.get("sourceCluster").textValue()).isEqualTo(name);
        assertThat(read.get("warnings").get(0).textValue()).isEqualTo(name);
        assertThat(read.get("topics").get(0).get("targetTopic").textValue()).isEqualTo(name);
        assertThat(read.get("topics").get(0).get("sourceTopic").textValue()).isEqualTo(name);
        JsonNode g = read.get("groups").get(0);
        assertThat(g.get("group").textValue()).isEqualTo(name);
        assertThat(g.get("outcome").textValue()).isEqualTo(name);
        assertThat(g.get("partitions").get(0).get("targetTopic").textValue()).isEqualTo(name);
        assertThat(g.get("partitions").get(0).get("sourceTopic").textValue()).isEqualTo(name);
        assertThat(g.get("partitions").get(0).get("how").textValue()).isEqualTo(name);
    }

    @Test
    void failoverJsonKeepsTheFieldNamesAndOrder() {
        Map<String, FailoverPlanner.GroupResult> results =
                Map.of("n", new FailoverPlanner.GroupResult("n", FailoverPlanner.Outcome.MOVED, "m"));

        assertThat(PlanText.json(failoverPlan("n"), true, results))
                .isEqualTo(
                        "{\"mode\":\"execute\",\"sourceReachable\":true,\"sourceCluster\":\"n\",\"targetCluster\":\"n\","
                                + "\"timeMs\":456,\"warnings\":[\"n\"],\"groups\":[{\"group\":\"n\",\"activeMembers\":0,"
                                + "\"positionsTimeMs\":123,\"problem\":\"n\",\"readAgain\":4,\"outcome\":\"moved\","
                                + "\"message\":\"m\",\"partitions\":[{\"topic\":\"n\",\"partition\":2,\"offset\":7,"
                                + "\"currentOffset\":3,\"readAgain\":4,\"exact\":false,\"sources\":[{\"topic\":\"n\","
                                + "\"partition\":1,\"committed\":5,\"sourceEnd\":9,\"notOnTarget\":2,"
                                + "\"notOnTargetAtLeast\":true,\"notOnTargetAgeSeconds\":1.500}]}]}]}");
    }

    @Test
    void failbackJsonKeepsTheFieldNamesAndOrder() {
        FailbackPlan plan = new FailbackPlan(
                "s",
                "t",
                77,
                failbackPlan("n").topics(),
                List.of(new FailbackPlan.GroupBack("n", 1, 2, List.of(), null)),
                List.of());

        assertThat(FailbackCommand.json(plan, false))
                .isEqualTo("{\"mode\":\"dry-run\",\"sourceCluster\":\"s\",\"targetCluster\":\"t\",\"timeMs\":77,"
                        + "\"warnings\":[],\"topics\":[{\"targetTopic\":\"n\",\"sourceTopic\":\"n\","
                        + "\"failoverTimeMs\":99,\"partitions\":[{\"partition\":0,\"failoverOffset\":1,\"targetEnd\":2,"
                        + "\"copied\":3,\"copiedFrom\":4,\"copiedTo\":5,\"sourceFrontier\":6,\"sourceEnd\":7,"
                        + "\"divergent\":8,\"divergentAgeSeconds\":0.250}]}],\"groups\":[{\"group\":\"n\","
                        + "\"activeOnTarget\":1,\"activeOnSource\":2,\"outcome\":null,\"partitions\":[]}]}");
    }
}
