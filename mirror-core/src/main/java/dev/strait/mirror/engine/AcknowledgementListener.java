package dev.strait.mirror.engine;

import org.apache.kafka.common.TopicPartition;

/**
 * Told, for every copy the target acknowledged, where a source record landed: (source partition, source
 * offset) to (target partition, target offset). The hook for exact offset translation (e.g. syncing consumer
 * group offsets to the target); the mirror itself needs none, so the default is {@link #NONE}.
 *
 * <p>Runs on the producer's I/O thread, once per acknowledged copy, in the order the target acknowledged
 * them (per target partition that is offset order; a source record that a handler turned into several
 * records is reported once per copy). It must be thread-safe, quick and never block: the I/O thread is
 * shared by every stream. An exception it throws is logged and otherwise ignored; it never fails a send.
 */
@FunctionalInterface
public interface AcknowledgementListener {
    /** Does nothing. */
    AcknowledgementListener NONE = (source, sourceOffset, target, targetOffset) -> {};

    void acknowledged(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset);

    /**
     * Loop prevention dropped source record {@code source}@{@code sourceOffset} because it is itself a copy of the
     * target record {@code target}@{@code targetOffset} (its provenance says so): that target record stands for it.
     * A group that consumed the source record has consumed its original, and one that has not must not be put past
     * the original on the target (a failover after a failback, or an active-active pair with identical names).
     * Runs on the stream's thread, in source offset order per source partition; same rules as
     * {@link #acknowledged}. Most listeners do not care.
     */
    default void original(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {}
}
