package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.Await;
import dev.strait.testkit.CompanionCluster;
import dev.strait.testkit.KafkaCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code strait failover --mirror-topics} as an operator runs it (its own JVM): a dry run lists the mirror topics
 * per partition; --execute promotes them, ends the transaction the copy left open and lets producers write after the
 * copied records; a second run finds them promoted.
 */
class MirrorTopicFailoverIT {
    @TempDir
    Path dir;

    @Test
    void aDryRunListsAndAnExecutionPromotesEndingTheOpenTransaction() throws Exception {
        try (KafkaCluster source = KafkaCluster.start("promote-source", 1);
                CompanionCluster target = CompanionCluster.start("promote-target", 1);
                Admin sourceAdmin = admin(source.bootstrapServers());
                Admin targetAdmin = admin(target.bootstrapServers())) {
            // Given: a source topic with committed records and a transaction still open, copied by a mirror topic
            TopicPartition tp = new TopicPartition("ledger", 0);
            sourceAdmin
                    .createTopics(List.of(new NewTopic("ledger", 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> plain = producer(source.bootstrapServers(), null)) {
                for (int i = 0; i < 40; i++) {
                    plain.send(new ProducerRecord<>("ledger", 0, "k" + i, "v" + i));
                }
                plain.flush();
            }
            KafkaProducer<String, String> open = producer(source.bootstrapServers(), "ledger-open");
            open.initTransactions();
            open.beginTransaction();
            for (int i = 0; i < 5; i++) {
                open.send(new ProducerRecord<>("ledger", 0, "t" + i, "open-" + i));
            }
            open.flush();
            targetAdmin
                    .createTopics(List.of(new NewTopic("ledger", 1, (short) 1)
                            .configs(Map.of("strait.mirror.source.bootstrap.servers", source.bootstrapServers()))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            long sourceEnd = offset(sourceAdmin, tp, false);
            Await.until("the copy", Duration.ofSeconds(60), () -> offset(targetAdmin, tp, false) == sourceEnd);
            Path config = dir.resolve("failover.properties");
            Files.writeString(
                    config,
                    "source.bootstrap.servers=" + source.bootstrapServers() + "\ntarget.bootstrap.servers="
                            + target.bootstrapServers() + "\n");

            // When: a dry run
            MirrorProcess.Run dry = strait("failover", "--config", config.toString(), "--mirror-topics", "ledger");

            // Then: listed, nothing changed
            assertThat(dry.code()).as(dry.err()).isZero();
            assertThat(dry.out())
                    .contains("ledger", "would promote", "would promote 1 of 1 mirror topics (1 partitions)")
                    .contains("1 partitions had a transaction open");
            assertThat(offset(targetAdmin, tp, true)).isEqualTo(40);

            // When: executed
            MirrorProcess.Run run =
                    strait("failover", "--config", config.toString(), "--mirror-topics", "ledger", "--execute");

            // Then: promoted, the open transaction ended by an abort marker (stable offset at the end), and a
            // producer writes after the copy
            assertThat(run.code()).as(run.err()).isZero();
            assertThat(run.out()).contains("promoted 1 of 1 mirror topics", "ended with an abort marker");
            assertThat(offset(targetAdmin, tp, true)).isEqualTo(sourceEnd + 1);
            try (KafkaProducer<String, String> after = producer(target.bootstrapServers(), null)) {
                RecordMetadata written = after.send(new ProducerRecord<>("ledger", 0, "after", "failover"))
                        .get(30, TimeUnit.SECONDS);
                assertThat(written.offset()).isEqualTo(sourceEnd + 1);
            }

            // And: run again, the topic is found promoted
            MirrorProcess.Run again = strait(
                    "failover", "--config", config.toString(), "--mirror-topics", "ledger", "--execute", "--json");
            assertThat(again.code()).isZero();
            assertThat(again.out().trim()).startsWith("{").contains("\"outcome\":\"already_promoted\"");

            // And: --groups and --mirror-topics together are refused
            MirrorProcess.Run both =
                    strait("failover", "--config", config.toString(), "--mirror-topics", "x", "--groups", "y");
            assertThat(both.code()).isEqualTo(2);
            assertThat(both.err()).contains("one of them");
            open.abortTransaction();
            open.close();
        }
    }

    private MirrorProcess.Run strait(String... args) throws Exception {
        return MirrorProcess.strait(dir, args);
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private static long offset(Admin admin, TopicPartition tp, boolean stable) {
        try {
            return admin.listOffsets(
                            Map.of(tp, OffsetSpec.latest()),
                            new ListOffsetsOptions(
                                    stable ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED))
                    .partitionResult(tp)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static KafkaProducer<String, String> producer(String bootstrap, String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        if (transactionalId != null) {
            props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        }
        return new KafkaProducer<>(props);
    }
}
