package dev.strait.mirror.failover;

import static dev.strait.mirror.failover.DrFixture.commit;
import static dev.strait.mirror.failover.DrFixture.ends;
import static dev.strait.mirror.failover.DrFixture.readAsGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Two Apache Kafka 4.1.1 clusters for the disaster-recovery lifecycle tests (issue 21), and how those tests judge a
 * move: by each record's identity, the cluster it was first written on and its offset there (a copy names them in
 * its provenance). After every move a group must have read every record it had not consumed that the new cluster
 * holds (skipped 0), and exactly as many it had consumed as the plan said it would read again. The tests are split
 * over several classes, each with its own pair of clusters, so that the integration test JVMs run them side by side.
 */
final class DrLifecycle implements AutoCloseable {
    final KafkaCluster dc1;
    final KafkaCluster dc2;

    DrLifecycle(String name) {
        KafkaCluster first = KafkaCluster.start(name + "-dc1", 1);
        try {
            dc2 = KafkaCluster.start(name + "-dc2", 1);
        } catch (RuntimeException e) {
            first.close();
            throw e;
        }
        dc1 = first;
    }

    @Override
    public void close() {
        dc1.close();
        dc2.close();
    }

    private MirrorEngine[] mirrors(String name, int processes) {
        MirrorEngine[] engines = new MirrorEngine[processes];
        for (int i = 0; i < processes; i++) {
            engines[i] = DrFixture.start(DrFixture.mirror(dc1, dc2, "mirror-" + name, name + "\\..*", name + "-.*")
                    .build());
        }
        return engines;
    }

    private static void stop(MirrorEngine[] engines) throws InterruptedException {
        for (MirrorEngine e : engines) {
            DrFixture.stop(e);
        }
    }

    /**
     * Given two partitions, the target with 300 and 700 records of its own, 5,000 per partition on the source and two
     * groups at different positions: failover, applications on the target, failback, the source again, twice; then
     * a third failover. Each move is checked by record identity.
     */
    void cycleTwice(String name, int processes) throws Exception {
        String topic = name + ".orders";
        dc1.createTopic(topic, 2);
        dc2.createTopic(topic, 2);
        produce(dc2, topic, 0, 300, 900_000);
        produce(dc2, topic, 1, 700, 900_000);
        String one = name + "-one";
        String two = name + "-two";
        commit(dc1, one, topic, Map.of(0, 3_000L, 1, 3_000L));
        commit(dc1, two, topic, Map.of(0, 1_000L, 1, 4_500L));
        GroupFilter groups = GroupFilter.of(name + "-.*", null, "--groups", "--groups.exclude");
        List<String> names = List.of(one, two);

        for (int cycle = 1; cycle <= 2; cycle++) {
            // The forward mirror copies everything (after a failback: the divergent records, and it drops the
            // copies written back), then stops; the source takes 15 records it never copies. The new records are
            // written once every process has its partitions, so that each process copies some.
            MirrorEngine[] engines = mirrors(name, processes);
            try {
                awaitMembers(dc1, "mirror-" + name, processes);
                produce(dc1, topic, 0, cycle == 1 ? 5_000 : 50, 300_000L * cycle);
                produce(dc1, topic, 1, cycle == 1 ? 5_000 : 50, 300_000L * cycle);
                awaitCopied(dc1, "mirror-" + name, topic, 2);
            } finally {
                stop(engines);
            }
            long divergentFrom = ends(dc1, topic, 2).get(0);
            produce(dc1, topic, 0, 15, 100_000L * cycle);
            String dc1Id = clusterId(dc1);
            Set<Id> divergent = new HashSet<>();
            for (long o = divergentFrom; o < divergentFrom + 15; o++) {
                divergent.add(new Id(dc1Id, 0, o));
            }

            // Failover: each group reads on the target exactly what it had not consumed
            Map<String, Map<Integer, Long>> onSource = positions(dc1, names, topic);
            FailoverPlan plan;
            try (FailoverPlanner planner = new FailoverPlanner(config(dc1, dc2), Time.SYSTEM)) {
                plan = planner.plan(groups);
                assertThat(planner.execute(plan, false))
                        .as("cycle %d: failover moves both groups", cycle)
                        .allSatisfy(r -> assertThat(r.outcome()).isEqualTo(FailoverPlanner.Outcome.MOVED));
            }
            for (String g : names) {
                Check c = check(dc1, onSource.get(g), dc2, g, topic);
                assertThat(c.skipped())
                        .as("cycle %d failover: %s skipped", cycle, g)
                        .isZero();
                assertThat(c.readAgain())
                        .as("cycle %d failover: %s read again, as the plan said", cycle, g)
                        .isEqualTo(group(plan, g).readAgain());
                assertThat(group(plan, g).partitions())
                        .as("cycle %d failover: %s is exact only where nothing is read again", cycle, g)
                        .allSatisfy(p -> assertThat(p.exact()).isEqualTo(p.readAgain() == 0));
            }

            // On the target: applications write 100 records per partition; cy-one reads every copy and 40 of them
            // on partition 0, all on partition 1; cy-two reads nothing
            produce(dc2, topic, 0, 100, 200_000L * cycle);
            produce(dc2, topic, 1, 100, 200_000L * cycle);
            Map<Integer, Long> targetEnds = ends(dc2, topic, 2);
            commit(dc2, one, topic, Map.of(0, targetEnds.get(0) - 60, 1, targetEnds.get(1)));

            // Failback: the records written on the target go back; each group resumes without skipping
            Map<String, Map<Integer, Long>> onTarget = positions(dc2, names, topic);
            FailbackPlan back;
            try (Failback failback = new Failback(config(dc1, dc2), Time.SYSTEM)) {
                back = failback.execute(failback.plan(groups), groups, false, Duration.ofMinutes(3));
            }
            assertThat(back.groups())
                    .as("cycle %d: failback moves both groups", cycle)
                    .allSatisfy(g -> assertThat(g.outcome()).isEqualTo("moved"));
            for (String g : names) {
                long predicted = back.groups().stream()
                        .filter(b -> b.group().equals(g))
                        .flatMap(b -> b.partitions().stream())
                        .mapToLong(FailbackPlan.PartitionGroupBack::readAgain)
                        .sum();
                // Neither group had consumed the divergent records (written after the mirror stopped): they count as
                // unconsumed although the target never held them.
                Check c = check(dc2, onTarget.get(g), dc1, g, topic, divergent);
                assertThat(c.skipped())
                        .as("cycle %d failback: %s skipped", cycle, g)
                        .isZero();
                assertThat(c.readAgain())
                        .as("cycle %d failback: %s read again, as the plan said", cycle, g)
                        .isEqualTo(predicted);
            }

            // Back on the source: the first group reads 25 more on partition 0 (then the source takes 50 new records
            // per partition, the next cycle's first step)
            Map<Integer, Long> atOne = dc1.committedOffsets(one, topic);
            commit(dc1, one, topic, Map.of(0, atOne.get(0) + 25, 1, atOne.get(1)));
        }

        // Finally a third failover, after two whole cycles: still nothing skipped
        MirrorEngine[] engines = mirrors(name, processes);
        try {
            awaitCopied(dc1, "mirror-" + name, topic, 2);
        } finally {
            stop(engines);
        }
        Map<String, Map<Integer, Long>> onSource = positions(dc1, names, topic);
        FailoverPlan plan;
        try (FailoverPlanner planner = new FailoverPlanner(config(dc1, dc2), Time.SYSTEM)) {
            plan = planner.plan(groups);
            planner.execute(plan, false);
        }
        for (String g : names) {
            Check c = check(dc1, onSource.get(g), dc2, g, topic);
            assertThat(c.skipped()).as("third failover: %s skipped", g).isZero();
            assertThat(c.readAgain())
                    .as("third failover: %s read again", g)
                    .isEqualTo(group(plan, g).readAgain());
        }
    }

    /** A record's identity on either cluster: where it was first written, and at which offset. */
    record Id(String cluster, int partition, long offset) {}

    /** What a group read after a move: records, records it had consumed before, unconsumed ones it missed. */
    record Check(long read, long readAgain, long skipped) {}

    /**
     * Reads {@code topic} on {@code to} as {@code group} from its committed offsets, and judges it against what it
     * had consumed on {@code from}: the records below {@code positions} there.
     */
    static Check check(TestCluster from, Map<Integer, Long> positions, TestCluster to, String group, String topic) {
        return check(from, positions, to, group, topic, Set.of());
    }

    /** The same, where {@code alsoUnconsumed} are records of {@code to} only that the group has not consumed either. */
    static Check check(
            TestCluster from,
            Map<Integer, Long> positions,
            TestCluster to,
            String group,
            String topic,
            Set<Id> alsoUnconsumed) {
        String fromId = clusterId(from);
        String toId = clusterId(to);
        Set<Id> consumed = new HashSet<>();
        Set<Id> unconsumed = new HashSet<>();
        TopicReader.readAll(from.bootstrapServers(), topic).forEach((p, records) -> {
            for (ConsumerRecord<byte[], byte[]> r : records) {
                Id id = id(r, fromId);
                if (r.offset() < positions.getOrDefault(p, 0L)) {
                    consumed.add(id);
                } else {
                    unconsumed.add(id);
                }
            }
        });
        unconsumed.addAll(alsoUnconsumed);
        Set<Id> held = new HashSet<>();
        TopicReader.readAll(to.bootstrapServers(), topic)
                .forEach((p, records) -> records.forEach(r -> held.add(id(r, toId))));
        List<ConsumerRecord<byte[], byte[]>> read = readAsGroup(to, group, topic, "none");
        Set<Id> seen = new HashSet<>();
        long again = 0;
        for (ConsumerRecord<byte[], byte[]> r : read) {
            Id id = id(r, toId);
            seen.add(id);
            if (consumed.contains(id)) {
                again++;
            }
        }
        long skipped = 0;
        for (Id id : unconsumed) {
            if (held.contains(id) && !seen.contains(id)) {
                skipped++;
            }
        }
        return new Check(read.size(), again, skipped);
    }

    static Id id(ConsumerRecord<byte[], byte[]> r, String clusterId) {
        Provenance p = Provenance.from(r.headers());
        return p == null
                ? new Id(clusterId, r.partition(), r.offset())
                : new Id(p.originCluster(), p.partition(), p.offset());
    }

    static String clusterId(TestCluster cluster) {
        try (var admin = cluster.admin()) {
            return admin.describeCluster().clusterId().get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static FailoverPlan.GroupPlan group(FailoverPlan plan, String group) {
        return plan.groups().stream()
                .filter(g -> g.group().equals(group))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no plan for " + group + ": " + plan));
    }

    static Map<String, Map<Integer, Long>> positions(TestCluster cluster, List<String> groups, String topic) {
        Map<String, Map<Integer, Long>> out = new HashMap<>();
        groups.forEach(g -> out.put(g, cluster.committedOffsets(g, topic)));
        return out;
    }

    /** Waits until the mirror's group has {@code members} members, each with partitions assigned. */
    static void awaitMembers(TestCluster source, String mirrorGroup, int members) {
        Await.until(mirrorGroup + " has " + members + " members with partitions", Duration.ofSeconds(120), () -> {
            try (var admin = source.admin()) {
                var group = admin.describeConsumerGroups(List.of(mirrorGroup))
                        .all()
                        .get()
                        .get(mirrorGroup);
                return group.members().size() == members
                        && group.members().stream()
                                .allMatch(m -> !m.assignment().topicPartitions().isEmpty());
            } catch (java.util.concurrent.ExecutionException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        });
    }

    /** Waits until the mirror's group committed every partition of {@code topic} to its end. */
    static void awaitCopied(TestCluster source, String mirrorGroup, String topic, int partitions) {
        Await.until(
                mirrorGroup + " copied " + topic + " to its end",
                Duration.ofSeconds(120),
                () -> source.committedOffsets(mirrorGroup, topic).equals(ends(source, topic, partitions)));
    }

    static void produce(TestCluster cluster, String topic, int partition, int count, long firstValue) {
        try (TestProducer producer = new TestProducer(cluster.bootstrapServers())) {
            for (int i = 0; i < count; i++) {
                producer.send(TestProducer.record(topic, partition, firstValue + i, 1_700_000_000_000L + i, 64));
            }
        }
    }

    static FailoverConfig config(TestCluster source, TestCluster target) {
        return DrFixture.failoverConfig(source, target, null);
    }
}
