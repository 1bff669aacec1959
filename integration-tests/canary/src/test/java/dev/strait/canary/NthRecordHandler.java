package dev.strait.canary;

import dev.strait.mirror.handler.MessageHandler;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;

/** A test handler that drops (args "drop:N") or writes twice (args "repeat:N") the N-th record it sees. */
public final class NthRecordHandler implements MessageHandler {
    private final AtomicLong seen = new AtomicLong();
    private boolean drop;
    private long n;

    @Override
    public void configure(String args) {
        String[] parts = args.split(":");
        drop = parts[0].equals("drop");
        n = Long.parseLong(parts[1]);
    }

    @Override
    public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> r) {
        ProducerRecord<byte[], byte[]> copy =
                new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value(), r.headers());
        if (seen.incrementAndGet() == n) {
            return drop ? List.of() : List.of(copy, copy);
        }
        return List.of(copy);
    }
}
