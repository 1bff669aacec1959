package dev.strait.lag;

import dev.strait.mirror.handler.MessageHandler;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** A test handler that drops source record 0@17 and writes source record 0@23 twice. */
public final class DropAndRepeatHandler implements MessageHandler {
    @Override
    public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> r) {
        ProducerRecord<byte[], byte[]> copy =
                new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value(), r.headers());
        if (r.partition() == 0 && r.offset() == 17) {
            return List.of();
        }
        if (r.partition() == 0 && r.offset() == 23) {
            return List.of(copy, copy);
        }
        return List.of(copy);
    }
}
