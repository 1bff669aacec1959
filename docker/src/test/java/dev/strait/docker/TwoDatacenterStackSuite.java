package dev.strait.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A two-datacenter compose file run the way docs/operating.md describes, by docker-compose, on free ports of
 * 127.0.0.1: records produced into dc1 (a 3-node cluster, topic replicated 3 times) arrive in dc2 exactly once and
 * in order; every service turns healthy; the lag monitor reports OK with exact lag 0 and the canary OK; the mirror's
 * process is SIGKILLed and its restart policy brings it back with nothing lost; `down` and `up` keep both clusters'
 * data (named volumes) and the mirror goes on from its committed offsets without copying a record twice. Each
 * subclass names the compose file and, with {@link dev.strait.testkit.RequiresDocker}, the images it needs: without
 * Docker it fails in CI and is skipped elsewhere.
 */
abstract class TwoDatacenterStackSuite {
    static final List<String> SERVICES =
            List.of("dc1-broker", "dc1-broker-2", "dc1-broker-3", "dc2-broker", "mirror", "lag-monitor", "canary");
    private static final Duration HEALTHY = Duration.ofMinutes(5);
    private static final Duration ARRIVE = Duration.ofMinutes(3);
    private static final int PER_PARTITION = 1_000;

    abstract String composeFile();

    /** Override files applied on top of {@link #composeFile()}. */
    List<String> overrides() {
        return List.of();
    }

    /** The settings of a client of the stack's cluster at {@code bootstrap} (security included, if any). */
    Map<String, Object> client(ComposeStack stack, String bootstrap) {
        return Map.of("bootstrap.servers", bootstrap);
    }

    /** Compose profiles whose services run too. */
    List<String> profiles() {
        return List.of();
    }

    /** More checks once the stack copied the first records. */
    void afterFirstCopy(ComposeStack stack) throws Exception {}

    /**
     * Whether the scenario goes on after the first copy with the mirror's crash and the stack's down and up. Those
     * test Docker's restart policy and volumes and the mirror's recovery, which do not depend on the brokers' kind;
     * the companion stack runs them, the Apache Kafka stack (slower to start) stops after the first copy.
     */
    boolean crashAndRestart() {
        return true;
    }

    @Test
    void dc1ToDc2ExactlyOnceThroughAMirrorCrashAndADownUp() throws Exception {
        try (ComposeStack stack =
                new ComposeStack(composeFile(), overrides().toArray(String[]::new)).profiles(profiles())) {
            try {
                scenario(stack);
            } catch (Throwable t) {
                stack.failed();
                throw t;
            }
        }
    }

    private void scenario(ComposeStack stack) throws Exception {
        // Given: the stack, healthy
        stack.up();
        stack.awaitHealthy(HEALTHY, SERVICES);
        try (Admin admin = Admin.create(client(stack, stack.dc1Bootstrap()))) {
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 3)))
                    .all()
                    .get();
            KafkaCluster.awaitWritable(admin, "orders", 3);
        }

        // When: records produced into dc1
        produce(stack, 0);

        // Then: in dc2, each once and in order; the lag monitor and the canary say OK
        MirrorCheck.Report first = awaitMirrored(stack, 3 * PER_PARTITION);
        assertThat(first.duplicates()).as(first.toString()).isZero();
        assertThat(first.digestsEqual()).as(first.toString()).isTrue();
        Await.until("the lag monitor reports OK with exact lag 0 on orders-0..2", ARRIVE, () -> lagOk(stack));
        Await.until("the canary reports OK with probes arrived", ARRIVE, () -> canaryOk(stack));
        afterFirstCopy(stack);

        if (!crashAndRestart()) {
            return;
        }

        // When: more records, and the mirror's process is killed (SIGKILL) while it copies them
        int restarts = stack.restartCount("mirror");
        produce(stack, PER_PARTITION);
        stack.crash("mirror");

        // Then: its restart policy brings it back, healthy, and nothing is lost (records copied since the last
        // commit may come twice: the at-least-once bound of a crash)
        Await.until("the mirror restarted by its policy", HEALTHY, () -> stack.restartCount("mirror") > restarts);
        stack.awaitHealthy(HEALTHY, List.of("mirror"));
        // The restarted mirror copies again from its last commit; once it committed the end, it is done.
        awaitCommitted(stack, 2 * PER_PARTITION);
        MirrorCheck.Report afterCrash = awaitMirrored(stack, 6 * PER_PARTITION);

        // When: the whole stack down (SIGTERM: the mirror commits) and up again, then more records
        stack.down();
        stack.up();
        stack.awaitHealthy(HEALTHY, SERVICES);
        // Healthy brokers may still be electing partition leaders: wait, bounded, for the records to be readable.
        Await.until(
                "dc1 keeps its " + 6 * PER_PARTITION + " records over down/up",
                ARRIVE,
                () -> countOrMinusOne(stack, stack.dc1Bootstrap()) == 6 * PER_PARTITION);
        Await.until(
                "dc2 keeps its " + afterCrash.targetRecords() + " records over down/up",
                ARRIVE,
                () -> countOrMinusOne(stack, stack.dc2Bootstrap()) == afterCrash.targetRecords());
        produce(stack, 2 * PER_PARTITION);

        // Then: everything arrives, and the clean stop added no duplicate
        awaitCommitted(stack, 3 * PER_PARTITION);
        MirrorCheck.Report last = awaitMirrored(stack, 9 * PER_PARTITION);
        assertThat(last.duplicates()).as("duplicates after down/up: " + last).isEqualTo(afterCrash.duplicates());
        Await.until("the lag monitor reports OK again", ARRIVE, () -> lagOk(stack));
        System.out.println(getClass().getSimpleName() + ": " + last + " (duplicates from the SIGKILL: "
                + afterCrash.duplicates() + ")");
    }

    private void produce(ComposeStack stack, int from) {
        try (TestProducer producer = new TestProducer(client(stack, stack.dc1Bootstrap()))) {
            producer.produce("orders", 3, from, PER_PARTITION);
        }
    }

    /** Waits until dc2 holds every dc1 record of orders, then returns the comparison: none lost or altered. */
    private MirrorCheck.Report awaitMirrored(ComposeStack stack, long expected) {
        MirrorCheck.Report[] report = new MirrorCheck.Report[1];
        Await.until(expected + " records of orders mirrored to dc2", ARRIVE, () -> {
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src;
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst;
            try {
                src = TopicReader.readAll(client(stack, stack.dc1Bootstrap()), "orders");
                dst = TopicReader.readAll(client(stack, stack.dc2Bootstrap()), "orders");
            } catch (IllegalStateException notYet) {
                return false;
            }
            report[0] = MirrorCheck.compare(src, "orders", dst);
            return report[0].sourceRecords() == expected && report[0].lost() == 0;
        });
        MirrorCheck.Report r = report[0];
        assertThat(r.mismatched()).as(r.toString()).isZero();
        assertThat(r.unordered()).as(r.toString()).isZero();
        assertThat(r.foreign()).as(r.toString()).isZero();
        return r;
    }

    /** Waits until the mirror's group committed {@code end} on every partition of orders in dc1. */
    private void awaitCommitted(ComposeStack stack, long end) {
        Await.until("the mirror committed offset " + end + " on orders-0..2", ARRIVE, () -> {
            try (Admin admin = Admin.create(client(stack, stack.dc1Bootstrap()))) {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets("dc1-to-dc2")
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS);
                return IntStream.range(0, 3).allMatch(p -> {
                    OffsetAndMetadata o = offsets.get(new TopicPartition("orders", p));
                    return o != null && o.offset() == end;
                });
            } catch (ExecutionException | TimeoutException notYet) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        });
    }

    private long countOrMinusOne(ComposeStack stack, String bootstrap) {
        try {
            return TopicReader.count(TopicReader.readAll(client(stack, bootstrap), "orders"));
        } catch (IllegalStateException | org.apache.kafka.common.KafkaException notYet) {
            return -1;
        }
    }

    private static boolean lagOk(ComposeStack stack) {
        String metrics = stack.get("LAG_MONITOR_PORT", "/metrics");
        List<PrometheusText.Sample> group = PrometheusText.samples(metrics, "strait_lag_group_status");
        List<PrometheusText.Sample> exact = PrometheusText.samples(metrics, "strait_lag_exact_records").stream()
                .filter(s -> s.labels().contains("topic=\"orders\""))
                .toList();
        return group.size() == 1
                && group.get(0).value() == 0
                && exact.size() == 3
                && exact.stream().allMatch(s -> s.value() == 0);
    }

    private static boolean canaryOk(ComposeStack stack) {
        String metrics = stack.get("CANARY_PORT", "/metrics");
        List<PrometheusText.Sample> state = PrometheusText.samples(metrics, "strait_canary_state");
        List<PrometheusText.Sample> arrived = PrometheusText.samples(metrics, "strait_canary_probes_arrived_total");
        return state.size() == 1
                && state.get(0).value() == 0
                && arrived.size() == 1
                && arrived.get(0).value() > 0;
    }
}
