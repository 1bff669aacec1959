package dev.strait.lag;

import dev.strait.mirror.handler.MessageHandler;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** A test handler that makes the mirror slow (1 ms per record), so a producer can outrun it. */
public final class SlowHandler implements MessageHandler {
    @Override
    public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> r) {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return List.of(new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value(), r.headers()));
    }
}
