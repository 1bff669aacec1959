package dev.strait.mirror.engine;

import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.provenance.Provenance;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what the target receives for one consumed record: the target topic and partition, the
 * provenance header, whether loop prevention drops it, and what the message handler makes of it. Knows
 * nothing of sending or committing; the stream hands each output to a {@link Sink}.
 *
 * <p>Not thread-safe: owned by one stream's thread (the handler it calls is shared and thread-safe).
 */
final class RecordRouter {
    private static final Logger LOGGER = LoggerFactory.getLogger(RecordRouter.class);

    /** Where target topics come from: created on first use, with their partition count and size limit. */
    interface Targets {
        TargetTopics.TargetTopic ensure(String sourceTopic, String targetTopic);

        /** Forgets what is known of a target topic so that the next {@link #ensure} looks again. */
        void refresh(String targetTopic);

        /**
         * The target topic's max.message.bytes as it is now (not as when the topic was first looked up): asked
         * before a record is refused as too large, since the limit may have been raised on the target since.
         */
        default int currentMaxMessageBytes(String sourceTopic, String targetTopic) {
            refresh(targetTopic);
            return ensure(sourceTopic, targetTopic).maxMessageBytes();
        }
    }

    /** Receives each record to send for a consumed record, with the target topic's max.message.bytes. */
    interface Sink {
        void send(ProducerRecord<byte[], byte[]> out, int maxMessageBytes);
    }

    /** What became of a consumed record. */
    enum Verdict {
        COPIED,
        /** A copy of a record the target already holds (see {@link #isCopyOfATargetRecord}). */
        DROPPED_BY_LOOP_PREVENTION,
        DROPPED_BY_HANDLER
    }

    /** The message handler threw for a record: treated like a failed send of that record. */
    static final class HandlerFailedException extends KafkaException {
        private static final long serialVersionUID = 1L;

        HandlerFailedException(String message, @Nullable Throwable cause) {
            super(message, cause);
        }
    }

    private final MirrorConfig settings;
    private final Targets targets;
    private final String sourceClusterId;
    private final String targetClusterId;
    private final @Nullable MessageHandler handler;
    private final String logPrefix;
    private final Map<TopicPartition, Route> routes = new HashMap<>();
    /** The provenance of the record {@link #route} last dropped by loop prevention: where its original is. */
    private @Nullable Provenance droppedCopyOf;

    private final Map<String, TargetTopics.TargetTopic> handlerTopics = new HashMap<>();

    RecordRouter(
            MirrorConfig settings, Targets targets, String sourceClusterId, String targetClusterId, String logPrefix) {
        this.settings = settings;
        this.targets = targets;
        this.sourceClusterId = sourceClusterId;
        this.targetClusterId = targetClusterId;
        this.handler = settings.messageHandler();
        this.logPrefix = logPrefix;
    }

    /** Newly assigned partitions: their target topics are looked up afresh and created before the first fetch. */
    void assigned(Collection<TopicPartition> partitions) {
        Set<String> topics = new HashSet<>();
        for (TopicPartition tp : partitions) {
            if (topics.add(tp.topic())) {
                targets.refresh(settings.renamer().targetTopic(tp.topic()));
            }
            buildRoute(tp);
        }
    }

    void forget(Collection<TopicPartition> partitions) {
        partitions.forEach(routes::remove);
    }

    /**
     * The current max.message.bytes of {@code targetTopic} (written for records of {@code sourceTopic}), read from
     * the target; the routes and handler topics that write to it take it from now on.
     */
    int currentMaxMessageBytes(String sourceTopic, String targetTopic) {
        int limit = targets.currentMaxMessageBytes(sourceTopic, targetTopic);
        routes.replaceAll((tp, r) ->
                r.targetTopic.equals(targetTopic) && r.maxMessageBytes != limit ? r.withMaxMessageBytes(limit) : r);
        handlerTopics.computeIfPresent(
                targetTopic, (name, t) -> new TargetTopics.TargetTopic(name, t.partitions(), limit));
        return limit;
    }

    Route routeFor(TopicPartition tp) {
        Route route = routes.get(tp);
        return route != null ? route : buildRoute(tp);
    }

    /**
     * Hands the records to send for {@code record} to {@code sink}, and says what became of it.
     *
     * @throws HandlerFailedException when the message handler threw
     */
    Verdict route(Route route, ConsumerRecord<byte[], byte[]> record, Sink sink) {
        // Everything is decided on the consumed record, never on what a handler made of it: a handler that
        // builds records without headers must not turn a copy into a "local" record that echoes back.
        Header incoming = record.headers().lastHeader(Provenance.HEADER);
        Provenance provenance = incoming == null ? null : Provenance.decode(incoming.value());
        if (isCopyOfATargetRecord(provenance, route)) {
            droppedCopyOf = provenance;
            return Verdict.DROPPED_BY_LOOP_PREVENTION;
        }
        byte[] stamp = settings.provenanceHeaders() ? stampFor(route, record, provenance) : null;
        if (handler == null) {
            Headers headers = record.headers();
            if (incoming != null) {
                headers.remove(Provenance.HEADER);
            }
            if (stamp != null) {
                headers.add(Provenance.HEADER, stamp);
            }
            sink.send(
                    new ProducerRecord<>(
                            route.targetTopic,
                            route.partitionFor(record.key()),
                            timestampOf(record),
                            record.key(),
                            record.value(),
                            headers),
                    route.maxMessageBytes);
            return Verdict.COPIED;
        }
        List<ProducerRecord<byte[], byte[]>> outs;
        try {
            outs = handler.handle(record);
        } catch (RuntimeException e) {
            throw new HandlerFailedException(
                    "message handler " + handler.getClass().getName() + " failed: " + e, e);
        }
        if (outs == null || outs.isEmpty()) {
            return Verdict.DROPPED_BY_HANDLER;
        }
        for (ProducerRecord<byte[], byte[]> pr : outs) {
            String targetTopic = settings.renamer().targetTopic(pr.topic());
            int targetPartitions = route.targetPartitions;
            int maxMessageBytes = route.maxMessageBytes;
            if (!targetTopic.equals(route.targetTopic)) {
                TargetTopics.TargetTopic t =
                        handlerTopics.computeIfAbsent(targetTopic, name -> targets.ensure(record.topic(), name));
                targetPartitions = t.partitions();
                maxMessageBytes = t.maxMessageBytes();
            }
            int partition = pr.partition() != null
                    ? pr.partition()
                    : Route.partitionFor(settings.partitionMode(), record.partition(), targetPartitions, pr.key());
            sink.send(
                    new ProducerRecord<>(
                            targetTopic,
                            partition,
                            pr.timestamp(),
                            pr.key(),
                            pr.value(),
                            headersFor(pr.headers(), stamp)),
                    maxMessageBytes);
        }
        return Verdict.COPIED;
    }

    /** Where the original of the record last dropped by loop prevention is on the target; null before any drop. */
    @Nullable
    Provenance droppedCopyOf() {
        return droppedCopyOf;
    }

    /**
     * True when the consumed record is itself a copy of a record of the target topic this route writes to:
     * the previous hop read it from the target cluster, from that very topic. Writing it would echo the
     * record back to where it came from. Anything else is copied, including records that carry a provenance
     * header naming the target only because an application forwarded the headers of its input (Kafka Streams
     * does by default): the target does not hold those.
     */
    private boolean isCopyOfATargetRecord(@Nullable Provenance provenance, Route route) {
        return provenance != null
                && provenance.sourceCluster().equals(targetClusterId)
                && provenance.topic().equals(route.targetTopic);
    }

    /** This hop's provenance: the record's first cluster is kept across hops, the rest describes this read. */
    private byte[] stampFor(Route route, ConsumerRecord<byte[], byte[]> record, @Nullable Provenance incoming) {
        if (incoming == null || incoming.originCluster().equals(sourceClusterId)) {
            return route.provenance.withOffset(record.offset());
        }
        return Provenance.prefix(incoming.originCluster(), sourceClusterId, record.topic(), record.partition())
                .withOffset(record.offset());
    }

    /**
     * A fresh header set for one handler output: the handler's headers without any provenance, plus this
     * hop's. Each output gets its own, because the producer freezes a record's headers when it sends it
     * and a handler may hand the same headers (often the input's) to several outputs.
     */
    private static Headers headersFor(@Nullable Headers handlerHeaders, byte @Nullable [] stamp) {
        RecordHeaders out = new RecordHeaders();
        if (handlerHeaders != null) {
            for (Header h : handlerHeaders) {
                if (!h.key().equals(Provenance.HEADER)) {
                    out.add(h);
                }
            }
        }
        if (stamp != null) {
            out.add(Provenance.HEADER, stamp);
        }
        return out;
    }

    private static @Nullable Long timestampOf(ConsumerRecord<byte[], byte[]> record) {
        return record.timestamp() == ConsumerRecord.NO_TIMESTAMP ? null : record.timestamp();
    }

    private Route buildRoute(TopicPartition tp) {
        TargetTopics.TargetTopic target =
                targets.ensure(tp.topic(), settings.renamer().targetTopic(tp.topic()));
        if (settings.partitionMode() == PartitionMode.PRESERVE && tp.partition() >= target.partitions()) {
            LOGGER.warn(
                    "{}Target topic {} has {} partitions, fewer than source partition {} needs; its records go by key "
                            + "hash instead. Add partitions to the target topic to keep partitions aligned.",
                    logPrefix,
                    target.name(),
                    target.partitions(),
                    tp);
        }
        Route route = new Route(
                target,
                tp.partition(),
                settings.partitionMode(),
                Provenance.prefix(sourceClusterId, sourceClusterId, tp.topic(), tp.partition()));
        routes.put(tp, route);
        return route;
    }
}
