package dev.strait.mirror.failover;

import static dev.strait.mirror.failover.DrFixture.awaitTargetOffsets;
import static dev.strait.mirror.failover.DrFixture.commit;
import static dev.strait.mirror.failover.DrFixture.ends;
import static dev.strait.mirror.failover.DrLifecycle.awaitCopied;
import static dev.strait.mirror.failover.DrLifecycle.check;
import static dev.strait.mirror.failover.DrLifecycle.config;
import static dev.strait.mirror.failover.DrLifecycle.group;
import static dev.strait.mirror.failover.DrLifecycle.produce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.failover.DrLifecycle.Check;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestCluster;
import dev.strait.time.Time;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Disaster recovery over a site's life on two Apache Kafka 4.1.1 clusters (issue 21): a group rewound on the source,
 * and an active-active pair on identical topic names with a group moved back and forth. Every target is pre-filled
 * with records of its own, so target offsets never equal source offsets and an identity translation would be
 * caught. {@link DrLifecycle} says how each move is judged; {@link DrCycleOnKafkaIT} runs failover, failback and
 * failover again.
 */
class DrLifecycleOnKafkaIT {
    private static DrLifecycle life;
    private static KafkaCluster dc1;
    private static KafkaCluster dc2;

    @BeforeAll
    static void clusters() {
        life = new DrLifecycle("life");
        dc1 = life.dc1;
        dc2 = life.dc2;
    }

    @AfterAll
    static void close() {
        if (life != null) {
            life.close();
        }
    }

    @Test
    void aGroupMovedBackOnTheSourceIsMovedBackOnTheTarget() throws Exception {
        // Given: the target holds 500 records of its own; 6,000 on the source, a group at its end, mirrored
        String topic = "rw.orders";
        dc1.createTopic(topic, 1);
        dc2.createTopic(topic, 1);
        produce(dc2, topic, 0, 500, 900_000);
        produce(dc1, topic, 0, 6_000, 0);
        commit(dc1, "rw-app", topic, Map.of(0, 6_000L));
        MirrorEngine engine = DrFixture.start(
                DrFixture.mirror(dc1, dc2, "mirror-rw", "rw\\..*", "rw-app").build());
        try {
            awaitTargetOffsets(dc2, "rw-app", topic, Map.of(0, 6_500L));

            // When: an operator resets the group on the source to 1,000 (kafka-consumer-groups --reset-offsets)
            commit(dc1, "rw-app", topic, Map.of(0, 1_000L));

            // Then: the sync follows it down (it used to keep 6,500: a consumer on the target skipped 5,000)
            awaitTargetOffsets(dc2, "rw-app", topic, Map.of(0, 1_500L));
        } finally {
            DrFixture.stop(engine);
        }
        assertThat(check(dc1, Map.of(0, 1_000L), dc2, "rw-app", topic)).isEqualTo(new Check(5_000, 0, 0));
    }

    @Test
    void activeActiveOnIdenticalNamesMovesAGroupBackAndForthWithoutSkipping() throws Exception {
        // Given: each side 2,000 records of its own on the same topic name, a mirror each way
        String topic = "aa.orders";
        dc1.createTopic(topic, 1);
        dc2.createTopic(topic, 1);
        produce(dc1, topic, 0, 2_000, 0);
        produce(dc2, topic, 0, 2_000, 500_000);
        MirrorEngine there = DrFixture.start(
                DrFixture.mirror(dc1, dc2, "mirror-aa-12", "aa\\..*", null).build());
        MirrorEngine back = DrFixture.start(
                DrFixture.mirror(dc2, dc1, "mirror-aa-21", "aa\\..*", null).build());
        try {
            awaitCopied(dc1, "mirror-aa-12", topic, 1);
            awaitCopied(dc2, "mirror-aa-21", topic, 1);
            assertThat(ends(dc1, topic, 1)).isEqualTo(Map.of(0, 4_000L));
            assertThat(ends(dc2, topic, 1)).isEqualTo(Map.of(0, 4_000L));
        } finally {
            DrFixture.stop(there);
            DrFixture.stop(back);
        }
        // The application read its own 2,000 and 500 copies of the other side's on dc1.
        commit(dc1, "aa-app", topic, Map.of(0, 2_500L));
        GroupFilter app = GroupFilter.of("aa-app", null, "--groups", "--groups.exclude");

        // When: it moves to dc2, reads 1,000 there, moves back to dc1, reads 300, and moves to dc2 again
        TestCluster from = dc1;
        TestCluster to = dc2;
        long[] readThere = {1_000, 300, 0};
        for (int move = 0; move < 3; move++) {
            Map<Integer, Long> before = from.committedOffsets("aa-app", topic);
            FailoverPlan plan;
            try (FailoverPlanner planner = new FailoverPlanner(config(from, to), Time.SYSTEM)) {
                plan = planner.plan(app);
                planner.execute(plan, false);
            }
            // Then: every record of the other side it had not read, read; what it reads again is what the plan said
            Check c = check(from, before, to, "aa-app", topic);
            assertThat(c.skipped()).as("move %d: skipped", move + 1).isZero();
            assertThat(c.readAgain())
                    .as("move %d: read again, as the plan said", move + 1)
                    .isEqualTo(group(plan, "aa-app").readAgain());
            assertThat(group(plan, "aa-app").partitions())
                    .as("move %d: exact only where nothing is read again", move + 1)
                    .allSatisfy(p -> assertThat(p.exact()).isEqualTo(p.readAgain() == 0));
            Map<Integer, Long> now = to.committedOffsets("aa-app", topic);
            commit(to, "aa-app", topic, Map.of(0, now.get(0) + readThere[move]));
            TestCluster swap = from;
            from = to;
            to = swap;
        }
    }
}
