package dev.strait.mirror.handler;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.jspecify.annotations.Nullable;

/**
 * A pluggable record handler ({@code --message.handler}), as in Kafka's MirrorMaker 1: it sees each source
 * record and returns the records to send for it: none to drop it, one (usually), or several.
 *
 * <p>The engine then applies the mirror's own rules to what the handler returns: the topic is treated as a
 * source-side name and renamed by {@code --topic.rename}/{@code --topic.prefix}; a null partition is chosen
 * by {@code --partition.mode}; the provenance header is added. The returned records must use byte arrays.
 *
 * <p>One instance is shared by all streams, so an implementation must be thread-safe. A handler that throws
 * is treated like a send failure for that record: with {@code abort.on.send.failure=true} the mirror stops
 * without committing past it; otherwise the record is counted, logged and skipped.
 *
 * <p>Implementations need a public no-argument constructor.
 */
public interface MessageHandler {

    /** Called once before the first record, with {@code --message.handler.args} (may be null). */
    default void configure(@Nullable String args) {}

    List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> record);
}
