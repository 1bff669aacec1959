package dev.strait.mirror.engine;

import org.apache.kafka.common.TopicPartition;

/** A source record whose copy the target did not accept. Immutable; passed from the producer's thread to the stream. */
record SendFailure(TopicPartition source, long offset, Exception cause) {
    String describe() {
        return source.topic() + "-" + source.partition() + "@" + offset;
    }
}
