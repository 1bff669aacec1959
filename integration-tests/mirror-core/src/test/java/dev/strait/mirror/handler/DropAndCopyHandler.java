package dev.strait.mirror.handler;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * A test handler: drops every record whose offset is a multiple of the configured modulus, and also
 * writes each record whose offset is 1 modulo it to a second topic, {@code <topic>.copy}.
 */
public final class DropAndCopyHandler implements MessageHandler {
    private int modulus = 10;

    @Override
    public void configure(String args) {
        if (args != null) {
            modulus = Integer.parseInt(args.trim());
        }
    }

    @Override
    public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> record) {
        if (record.offset() % modulus == 0) {
            return List.of();
        }
        List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(2);
        out.add(new ProducerRecord<>(
                record.topic(), null, record.timestamp(), record.key(), record.value(), record.headers()));
        if (record.offset() % modulus == 1) {
            out.add(new ProducerRecord<>(
                    record.topic() + ".copy",
                    null,
                    record.timestamp(),
                    record.key(),
                    record.value(),
                    record.headers()));
        }
        return out;
    }
}
