package dev.strait.mirror.failover;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The cycle of {@link DrCycleOnKafkaIT} with two mirror processes in one mirror group: each has its own offset map
 * and group sync writing the sync topic and copies one of the two partitions, and a failover reads both processes'
 * snapshots.
 */
class DrCycleTwoProcessesOnKafkaIT {
    private static DrLifecycle life;

    @BeforeAll
    static void clusters() {
        life = new DrLifecycle("drcycle2");
    }

    @AfterAll
    static void close() {
        if (life != null) {
            life.close();
        }
    }

    @Test
    void theSameCycleWithTwoMirrorProcesses() throws Exception {
        life.cycleTwice("cz", 2);
    }
}
