package dev.strait.mirror.sync;

import org.apache.kafka.common.TopicPartition;

/**
 * One thing known for certain about a target partition: the record at {@code targetOffset} is a copy of
 * source record {@code sourceOffset} of {@code source}. A target offset holds one record forever (until the
 * topic is truncated or re-created), so facts learnt from different places never contradict each other.
 */
public record Fact(long targetOffset, TopicPartition source, long sourceOffset) {}
