package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.Test;

class SendFailuresTest {

    @Test
    void aRefusedIdempotentProducerBehindTheProducersWrapperStillNamesTheGrant() {
        // What a send gets after InitProducerId was refused: the producer's own wrapper around the refusal.
        Throwable wrapped = new KafkaException(
                "Cannot execute transactional method because we are in an error state",
                new ClusterAuthorizationException("Cluster authorization failed."));

        assertThat(SendFailures.advice(wrapped))
                .isEqualTo(SendFailures.advice(new ClusterAuthorizationException("Cluster authorization failed.")))
                .contains("IDEMPOTENT_WRITE")
                .contains("grant it WRITE on its target topics");
    }

    @Test
    void aBrokerErrorIsNotUnwrapped() {
        assertThat(SendFailures.advice(new RecordTooLargeException("too large")))
                .contains("max.message.bytes");
        assertThat(SendFailures.advice(new KafkaException("closed")))
                .isEqualTo("Fix the cause and restart; nothing past it was committed.");
    }
}
