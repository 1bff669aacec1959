package dev.strait.lag;

import dev.strait.mirror.handler.MessageHandler;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * A deterministic handler as users write them: drops every fifth record, writes every seventh twice (as two
 * different records), and rewrites every value and its headers. With args {@code lose=N} it also drops source
 * record 0@N: a mirror run with those args loses one record the audit (given the plain handler) expects.
 */
public final class FilterAndSplitHandler implements MessageHandler {
    private long lose = -1;

    @Override
    public void configure(String args) {
        if (args != null && args.startsWith("lose=")) {
            lose = Long.parseLong(args.substring("lose=".length()));
        } else if (args != null) {
            throw new IllegalArgumentException("expected lose=N, not " + args);
        }
    }

    @Override
    public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> r) {
        if (r.offset() % 5 == 0 || r.partition() == 0 && r.offset() == lose) {
            return List.of();
        }
        if (r.offset() % 7 == 0) {
            return List.of(out(r, "first"), out(r, "second"));
        }
        return List.of(out(r, "only"));
    }

    private static ProducerRecord<byte[], byte[]> out(ConsumerRecord<byte[], byte[]> r, String which) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("handled", which.getBytes(StandardCharsets.UTF_8));
        byte[] value = (which + ":" + new String(r.value(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), value, headers);
    }
}
