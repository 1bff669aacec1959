package dev.strait.cli;

import dev.strait.testkit.TestCluster;

/** The mirror-process suite with Apache Kafka 4.1.1 clusters (child JVMs) as source and target. */
class MirrorProcessOnKafkaIT extends MirrorProcessSuite {
    MirrorProcessOnKafkaIT() {
        super(TestCluster.Kind.KAFKA);
    }
}
