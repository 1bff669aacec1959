package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An idempotent producer carries on on a promoted mirror topic: the copy brings the producer's state (id, epoch,
 * last sequences) with the batches, so the next sequence is taken, a retry of the last batch is answered with its
 * original offset and appended nothing, and a gap is refused, also after a restart. And a producer that starts on
 * the promoted cluster never gets a producer id the copy brought from the source: the two clusters hand out ids
 * from ranges of their own. The producer is a raw client, so the test decides the ids and sequences sent.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class MirrorTopicProducerContinuityIT {
    private static final String TOPIC = "ledger";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @Test
    void anIdempotentProducerContinuesOnThePromotedTopicAndNewProducersGetIdsOfTheirOwn() throws Exception {
        try (EmbeddedCluster source = EmbeddedCluster.builder().nodes(1).start();
                EmbeddedCluster target = EmbeddedCluster.builder().nodes(1).start();
                Admin sourceAdmin = admin(source);
                Admin targetAdmin = admin(target)) {
            // Given: a producer of the source wrote sequences 0 to 9, copied by a mirror topic
            sourceAdmin
                    .createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            long pid;
            try (RawKafkaClient client = client(source)) {
                pid = client.initProducerId();
                for (int seq = 0; seq < 10; seq++) {
                    PartitionProduceResponse r = produce(client, pid, seq, "source-" + seq);
                    assertThat(Errors.forCode(r.errorCode())).isEqualTo(Errors.NONE);
                    assertThat(r.baseOffset()).isEqualTo(seq);
                }
            }
            targetAdmin
                    .createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1)
                            .configs(Map.of("strait.mirror.source.bootstrap.servers", source.bootstrapServers()))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            waitFor("the copy", () -> end(targetAdmin) == 10);

            // When: the mirror topic is promoted
            targetAdmin
                    .incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.TOPIC, TOPIC),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("strait.mirror.state", "promoted"), AlterConfigOp.OpType.SET))))
                    .all()
                    .get(30, TimeUnit.SECONDS);

            // Then: the same producer's next sequence lands after the copy
            try (RawKafkaClient client = client(target)) {
                PartitionProduceResponse[] next = new PartitionProduceResponse[1];
                waitFor("the promote", () -> {
                    next[0] = produce(client, pid, 10, "target-10");
                    return Errors.forCode(next[0].errorCode()) != Errors.INVALID_REQUEST;
                });
                assertThat(Errors.forCode(next[0].errorCode())).isEqualTo(Errors.NONE);
                assertThat(next[0].baseOffset()).isEqualTo(10);
                // a retry of it is answered with its offset and appends nothing
                PartitionProduceResponse retry = produce(client, pid, 10, "target-10");
                assertThat(Errors.forCode(retry.errorCode())).isEqualTo(Errors.NONE);
                assertThat(retry.baseOffset()).isEqualTo(10);
                assertThat(end(targetAdmin)).isEqualTo(11);
                // a gap is refused
                assertThat(Errors.forCode(produce(client, pid, 12, "gap").errorCode()))
                        .isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER);
            }

            // And: after a restart, from the state rebuilt from the log
            target.restart();
            try (RawKafkaClient client = client(target)) {
                PartitionProduceResponse[] after = new PartitionProduceResponse[1];
                waitFor("the restarted leader", () -> {
                    after[0] = produce(client, pid, 11, "target-11");
                    Errors error = Errors.forCode(after[0].errorCode());
                    return error != Errors.NOT_LEADER_OR_FOLLOWER && error != Errors.UNKNOWN_TOPIC_OR_PARTITION;
                });
                assertThat(Errors.forCode(after[0].errorCode())).isEqualTo(Errors.NONE);
                assertThat(after[0].baseOffset()).isEqualTo(11);

                // And: a producer that starts on the target gets an id the source never handed out
                long fresh = client.initProducerId();
                assertThat(fresh).isNotEqualTo(pid);
                PartitionProduceResponse first = produce(client, fresh, 0, "fresh-0");
                assertThat(Errors.forCode(first.errorCode())).isEqualTo(Errors.NONE);
                assertThat(first.baseOffset()).isEqualTo(12);
            }
        }
    }

    private static RawKafkaClient client(EmbeddedCluster cluster) throws Exception {
        String[] hostPort = cluster.bootstrapServers().split(",")[0].split(":");
        return new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]));
    }

    private static PartitionProduceResponse produce(RawKafkaClient client, long pid, int sequence, String value) {
        try {
            return RawKafkaClient.onlyPartition(
                    (ProduceResponse) client.call(RawKafkaClient.idempotentProduce(TP, pid, sequence, value, 10_000)));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static long end(Admin admin) {
        try {
            return admin.listOffsets(Map.of(TP, OffsetSpec.latest()))
                    .partitionResult(TP)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        } catch (Exception e) {
            return -1;
        }
    }

    private static Admin admin(EmbeddedCluster cluster) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(60), condition);
    }
}
