/**
 * The running mirror. {@link dev.strait.mirror.engine.MirrorEngine} owns the lifecycle, one shared producer and
 * {@code num.streams} {@code MirrorStream}s, each on its own
 * {@code strait-mirror-stream-N} thread (poll, route, send, commit only what the target acknowledged);
 * {@code RecordRouter} decides what each record becomes on the target, and
 * {@link dev.strait.mirror.engine.TargetTopics} creates the target topics and keeps them in step. Beside the
 * streams, {@code EngineSyncs} runs {@code strait-topic-sync} and, when the offset map is kept,
 * {@code strait-group-sync}; the producer's I/O thread runs the send callbacks and the
 * {@link dev.strait.mirror.engine.AcknowledgementListener}. Each class says which of these threads use it.
 * The top of the mirror: it imports every other mirror package and, as the one exception to kafka-clients'
 * public API, {@code RecordSizer} uses its record classes. The command line, failback's reverse mirror and the
 * benchmarks import it.
 */
package dev.strait.mirror.engine;
