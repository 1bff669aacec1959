package dev.strait.cli.container;

import java.util.List;

import dev.strait.testkit.Docker;

/**
 * docker/compose.two-dc.apache-kafka.yml: plain Apache Kafka 4.1.1 in both datacenters (3 KRaft nodes in dc1, one in
 * dc2; the image {@link Docker#kafkaImage()}), the same mirror, lag monitor and canary.
 */
class TwoDatacenterApacheKafkaStackIT extends TwoDatacenterStackSuite {
    @Override
    String composeFile() {
        return "compose.two-dc.apache-kafka.yml";
    }

    @Override
    List<String> images() {
        return List.of(Docker.straitImage(), Docker.kafkaImage());
    }
}
