package dev.strait.mirror.engine;

import dev.strait.testkit.TestCluster;

/** The engine suite with Apache Kafka 4.1.1 clusters (child JVMs) as source and target. */
class MirrorEngineOnKafkaIT extends MirrorEngineSuite {
    MirrorEngineOnKafkaIT() {
        super(TestCluster.Kind.KAFKA);
    }
}
