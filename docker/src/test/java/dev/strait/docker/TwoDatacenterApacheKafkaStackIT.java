package dev.strait.docker;

import dev.strait.testkit.Docker;
import dev.strait.testkit.RequiresDocker;

/**
 * docker/compose.two-dc.apache-kafka.yml: plain Apache Kafka 4.1.1 in both datacenters (3 KRaft nodes in dc1, one in
 * dc2; the image {@link Docker#kafkaImage()}), the same mirror, lag monitor and canary: up, healthy, records from dc1
 * in dc2 exactly once and in order, the lag monitor and the canary OK.
 */
@RequiresDocker(strait = true, kafka = true)
class TwoDatacenterApacheKafkaStackIT extends TwoDatacenterStackSuite {
    @Override
    String composeFile() {
        return "compose.two-dc.apache-kafka.yml";
    }

    @Override
    boolean crashAndRestart() {
        return false;
    }
}
