package dev.strait.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class KafkaClusterIT {

    @Test
    void producesAndReadsBackAcrossARestart() {
        try (KafkaCluster cluster = KafkaCluster.start("smoke", 1)) {
            // Given
            cluster.createTopic("smoke", 2);
            try (TestProducer producer = new TestProducer(cluster.bootstrapServers())) {
                producer.produce("smoke", 2, 50);
            }

            // When
            cluster.kill(1);
            cluster.restart(1);
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> records =
                    TopicReader.readAll(cluster.bootstrapServers(), "smoke");

            // Then
            assertThat(records.get(0)).hasSize(50);
            assertThat(records.get(1)).hasSize(50);
            assertThat(records.get(1).get(7).headers().lastHeader("trace").value())
                    .containsExactly("t-7".getBytes(StandardCharsets.UTF_8));
        }
    }
}
