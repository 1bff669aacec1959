package dev.strait.mirror.failover;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Failover, failback and failover again, twice, then a third failover, on two Apache Kafka 4.1.1 clusters (issue
 * 21), with two groups and divergent source records each cycle, judged by record identity as {@link DrLifecycle}
 * says.
 */
class DrCycleOnKafkaIT {
    private static DrLifecycle life;

    @BeforeAll
    static void clusters() {
        life = new DrLifecycle("drcycle");
    }

    @AfterAll
    static void close() {
        if (life != null) {
            life.close();
        }
    }

    @Test
    void failoverFailbackAndFailoverAgainTwiceNeverSkipARecord() throws Exception {
        life.cycleTwice("cy", 1);
    }
}
