package dev.strait.mirror.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.offsets.OffsetTracker;
import dev.strait.mirror.provenance.Provenance;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consumer thread of the mirror: poll from the source, send to the shared producer, and every commit
 * interval flush the producer and commit what the target acknowledged.
 *
 * <pre>
 *   NEW --run()--> RUNNING --stop requested--> STOPPING --flush, commit, close--> STOPPED
 *                     \--send failure (abort) / truncation (fail) / fatal error--> FAILED (after a safe commit)
 * </pre>
 *
 * <p>The no-loss rule: a source offset is committed only after the producer was flushed, so every record
 * sent before it has completed, and never past the first record whose send failed (see {@link OffsetTracker}).
 * Partitions revoked in a rebalance are flushed and committed first, inside the rebalance callback.
 *
 * <p>Threading: everything here runs on the stream's own thread, except {@link SendCallback}, which the
 * producer's I/O thread runs; it touches only the atomic counter, the failure queue and the metrics.
 */
final class MirrorStream implements Runnable {
    private static final Logger LOGGER = LoggerFactory.getLogger(MirrorStream.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(60);
    private static final long LAG_PUBLISH_INTERVAL_MS = 1000;
    private static final long FAILURE_LOG_INTERVAL_MS = 1000;

    enum State { NEW, RUNNING, STOPPING, STOPPED, FAILED }

    private final int index;
    private final String logPrefix;
    private final MirrorSettings settings;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final TargetTopics targetTopics;
    private final String sourceClusterId;
    private final String targetClusterId;
    private final MirrorMetrics metrics;
    private final Time time;
    private final MessageHandler handler;
    private final SourceTruncationHandler truncation;
    private final String offsetReset;

    private final OffsetTracker offsets = new OffsetTracker();
    private final Map<TopicPartition, Route> routes = new HashMap<>();
    private final Map<String, TargetTopics.TargetTopic> handlerTopics = new HashMap<>();
    private final RecordSizer sizer;

    // Written by the producer's I/O thread, read by the stream thread.
    private final AtomicLong outstanding = new AtomicLong();
    private final ConcurrentLinkedQueue<SendFailure> failures = new ConcurrentLinkedQueue<>();
    private final AtomicLong lastFailureLogMs = new AtomicLong();
    private final AtomicLong suppressedFailureLogs = new AtomicLong();
    private volatile boolean sendFailed;

    private volatile boolean stopRequested;
    private volatile State state = State.NEW;
    private long nextCommitMs;
    private long nextLagMs;

    MirrorStream(int index, MirrorSettings settings, Consumer<byte[], byte[]> consumer, Producer<byte[], byte[]> producer,
                 TargetTopics targetTopics, String sourceClusterId, String targetClusterId, MirrorMetrics metrics,
                 Time time, String offsetReset, RecordSizer sizer) {
        this.index = index;
        this.logPrefix = "[stream " + index + "] ";
        this.settings = settings;
        this.consumer = consumer;
        this.producer = producer;
        this.targetTopics = targetTopics;
        this.sourceClusterId = sourceClusterId;
        this.targetClusterId = targetClusterId;
        this.metrics = metrics;
        this.time = time;
        this.handler = settings.messageHandler();
        this.offsetReset = offsetReset;
        this.sizer = sizer;
        this.truncation = new SourceTruncationHandler(consumer, offsets, settings.onSourceTruncation(), metrics, logPrefix);
    }

    State state() {
        return state;
    }

    /** Asks the stream to stop after its current poll; it then flushes, commits and closes. */
    void requestStop() {
        stopRequested = true;
    }

    @Override
    public void run() {
        transitionTo(State.RUNNING);
        Throwable fatal = null;
        try {
            consumer.subscribe(settings.subscription(), new RebalanceListener());
            long now = time.milliseconds();
            nextCommitMs = now + settings.offsetCommitIntervalMs();
            nextLagMs = now;
            pollLoop();
        } catch (Throwable t) {
            fatal = unwrap(t);
        }
        if (fatal == null) {
            transitionTo(State.STOPPING);
        }
        fatal = finish(fatal);
        transitionTo(fatal == null ? State.STOPPED : State.FAILED);
        metrics.forgetStream(index);
        if (fatal != null) {
            throw fatal instanceof MirrorException ? (MirrorException) fatal : new MirrorException(fatal.toString(), fatal);
        }
    }

    private void pollLoop() {
        while (!stopRequested) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                records = consumer.poll(POLL_TIMEOUT);
            } catch (NoOffsetForPartitionException e) {
                startNeverCommitted(e.partitions());
                continue;
            } catch (OffsetOutOfRangeException e) {
                truncation.handle(e.offsetOutOfRangePartitions());
                continue;
            }
            if (!records.isEmpty()) {
                mirror(records);
            }
            if (sendFailed) {
                // The failing record is named by the exception; finish() commits only up to it.
                throw abortError();
            }
            long now = time.milliseconds();
            if (now >= nextCommitMs) {
                commit(new ArrayList<>(offsets.tracked()));
                nextCommitMs = now + settings.offsetCommitIntervalMs();
            }
            if (now >= nextLagMs) {
                publishLag();
                metrics.sync();
                nextLagMs = now + LAG_PUBLISH_INTERVAL_MS;
            }
        }
    }

    private void mirror(ConsumerRecords<byte[], byte[]> records) {
        for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> batch = records.records(tp);
            Route route = routes.get(tp);
            if (route == null) {
                route = buildRoute(tp);
            }
            long bytes = 0;
            for (ConsumerRecord<byte[], byte[]> record : batch) {
                bytes += payloadBytes(record);
                if (handler == null) {
                    mirrorOne(tp, route, record);
                } else {
                    mirrorThroughHandler(tp, route, record);
                }
            }
            // Only after every record of the batch was handed to the producer may its offsets be committed.
            ConsumerRecord<byte[], byte[]> last = batch.get(batch.size() - 1);
            offsets.polled(tp, last.offset(), last.leaderEpoch());
            metrics.consumed(batch.size(), bytes);
            if (sendFailed) {
                return;
            }
        }
    }

    private void mirrorOne(TopicPartition tp, Route route, ConsumerRecord<byte[], byte[]> record) {
        Headers headers = record.headers();
        if (!stampProvenance(route, record, headers)) {
            return;
        }
        ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(route.targetTopic, route.partitionFor(record.key()),
            timestampOf(record), record.key(), record.value(), headers);
        send(out, tp, record, route.maxMessageBytes);
    }

    private void mirrorThroughHandler(TopicPartition tp, Route route, ConsumerRecord<byte[], byte[]> record) {
        List<ProducerRecord<byte[], byte[]>> outs;
        try {
            outs = handler.handle(record);
        } catch (RuntimeException e) {
            onSendFailure(tp, record.offset(),
                new KafkaException("message handler " + handler.getClass().getName() + " failed: " + e, e));
            return;
        }
        if (outs == null || outs.isEmpty()) {
            metrics.droppedByHandler();
            return;
        }
        for (ProducerRecord<byte[], byte[]> pr : outs) {
            Headers headers = pr.headers();
            if (!stampProvenance(route, record, headers)) {
                continue;
            }
            String targetTopic = settings.renamer().targetTopic(pr.topic());
            int targetPartitions = route.targetPartitions;
            int maxMessageBytes = route.maxMessageBytes;
            if (!targetTopic.equals(route.targetTopic)) {
                TargetTopics.TargetTopic t = handlerTopics.computeIfAbsent(targetTopic,
                    name -> targetTopics.ensure(record.topic(), name));
                targetPartitions = t.partitions();
                maxMessageBytes = t.maxMessageBytes();
            }
            int partition = pr.partition() != null ? pr.partition()
                : Route.partitionFor(settings.partitionMode(), record.partition(), targetPartitions, pr.key());
            send(new ProducerRecord<>(targetTopic, partition, pr.timestamp(), pr.key(), pr.value(), headers), tp, record,
                maxMessageBytes);
        }
    }

    /**
     * Replaces any provenance header with this hop's. Returns false when the record must not be mirrored
     * because it originated on the target cluster (active-active loop prevention).
     */
    private boolean stampProvenance(Route route, ConsumerRecord<byte[], byte[]> record, Headers headers) {
        Header incoming = headers.lastHeader(Provenance.HEADER);
        String origin = incoming == null ? null : Provenance.originOf(incoming.value());
        if (origin != null && origin.equals(targetClusterId)) {
            metrics.droppedByLoopPrevention();
            return false;
        }
        if (!settings.provenanceHeaders()) {
            return true;
        }
        if (incoming != null) {
            headers.remove(Provenance.HEADER);
        }
        byte[] value = origin == null ? route.provenance.withOffset(record.offset())
            : Provenance.prefix(origin, sourceClusterId, record.topic(), record.partition()).withOffset(record.offset());
        headers.add(Provenance.HEADER, value);
        return true;
    }

    /** Key and value bytes as read from the source (-1 sizes mean null). */
    private static int payloadBytes(ConsumerRecord<byte[], byte[]> record) {
        return Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
    }

    private static Long timestampOf(ConsumerRecord<byte[], byte[]> record) {
        return record.timestamp() == ConsumerRecord.NO_TIMESTAMP ? null : record.timestamp();
    }

    private void send(ProducerRecord<byte[], byte[]> out, TopicPartition tp, ConsumerRecord<byte[], byte[]> source,
                      int maxMessageBytes) {
        int oversize = sizer.oversizeBytes(out, maxMessageBytes);
        if (oversize > 0) {
            onSendFailure(tp, source.offset(),
                new RecordTooLargeException("the record is " + oversize + " bytes, more than max.message.bytes="
                    + maxMessageBytes + " of target topic " + out.topic()));
            return;
        }
        SendCallback callback = new SendCallback(tp, source.offset(),
            source.timestamp(), payloadBytes(source));
        outstanding.incrementAndGet();
        try {
            producer.send(out, callback);
        } catch (RuntimeException e) {
            callback.onCompletion(null, e);
        }
    }

    /** Runs on the producer's I/O thread once the target acknowledged or rejected one record. */
    private final class SendCallback implements Callback {
        private final TopicPartition source;
        private final long offset;
        private final long timestampMs;
        private final int bytes;

        SendCallback(TopicPartition source, long offset, long timestampMs, int bytes) {
            this.source = source;
            this.offset = offset;
            this.timestampMs = timestampMs;
            this.bytes = bytes;
        }

        @Override
        public void onCompletion(RecordMetadata metadata, Exception exception) {
            try {
                if (exception == null) {
                    metrics.produced(bytes, time.milliseconds() - timestampMs);
                } else {
                    onSendFailure(source, offset, exception);
                }
            } finally {
                outstanding.decrementAndGet();
            }
        }
    }

    private void onSendFailure(TopicPartition source, long offset, Exception cause) {
        metrics.sendError();
        SendFailure failure = new SendFailure(source, offset, cause);
        if (settings.abortOnSendFailure()) {
            failures.add(failure);
            sendFailed = true;
            if (failures.size() == 1) {
                LOGGER.error("{}Send of source record {} to the target failed: {}; stopping without committing past it "
                    + "(abort.on.send.failure=true)", logPrefix, failure.describe(), cause.toString());
            }
            return;
        }
        long now = time.milliseconds();
        long last = lastFailureLogMs.get();
        if (now - last >= FAILURE_LOG_INTERVAL_MS && lastFailureLogMs.compareAndSet(last, now)) {
            long suppressed = suppressedFailureLogs.getAndSet(0);
            LOGGER.warn("{}Skipping source record {}: send to the target failed: {} (abort.on.send.failure=false{})",
                logPrefix, failure.describe(), cause.toString(),
                suppressed > 0 ? "; " + suppressed + " more skipped since the last report" : "");
        } else {
            suppressedFailureLogs.incrementAndGet();
        }
    }

    private MirrorException abortError() {
        SendFailure earliest = failures.peek();
        // Name the lowest failed offset of the partition that failed first: that is where the commit stopped.
        long lowest = firstFailedOffsets().get(earliest.source());
        SendFailure first = lowest == earliest.offset() ? earliest
            : new SendFailure(earliest.source(), lowest, earliest.cause());
        return new MirrorException("send of source record " + first.describe() + " (topic " + first.source().topic()
            + ", partition " + first.source().partition() + ", offset " + first.offset() + ") failed: " + first.cause()
            + "; offsets were committed up to it, not past it. Fix the cause (e.g. the target topic's max.message.bytes) "
            + "or run with --abort.on.send.failure=false to skip such records", first.cause());
    }

    /**
     * Flushes the producer, then commits for {@code partitions} everything the target acknowledged, never
     * past a failed record. A commit that fails (rebalance, timeout) is logged: the records since the last
     * commit will be mirrored again, as duplicates, never lost.
     */
    private void commit(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return;
        }
        try (var ignored = metrics.timeFlush()) {
            producer.flush();
        }
        if (outstanding.get() != 0 && !sendFailed) {
            throw new IllegalStateException(logPrefix + outstanding.get() + " sends still outstanding after flush");
        }
        Map<TopicPartition, OffsetAndMetadata> toCommit = offsets.commitOffsets(partitions, firstFailedOffsets());
        if (toCommit.isEmpty()) {
            return;
        }
        try (var ignored = metrics.timeCommit()) {
            consumer.commitSync(toCommit, COMMIT_TIMEOUT);
            offsets.committed(toCommit);
            LOGGER.debug("{}Committed {}", logPrefix, toCommit);
        } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
            metrics.commitFailed();
            LOGGER.warn("{}Offset commit failed ({}); records mirrored since the last commit may be mirrored again "
                + "after a restart or rebalance (duplicates, not loss)", logPrefix, e.toString());
        }
    }

    private Map<TopicPartition, Long> firstFailedOffsets() {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (SendFailure f : failures) {
            out.merge(f.source(), f.offset(), Math::min);
        }
        return out;
    }

    /** Final flush and commit, then close the consumer. Returns the error the stream ends with, if any. */
    private Throwable finish(Throwable fatal) {
        Throwable result = fatal;
        try {
            commit(new ArrayList<>(offsets.tracked()));
        } catch (Throwable t) {
            LOGGER.warn("{}Final commit failed: {}; uncommitted records will be mirrored again", logPrefix, t.toString());
            if (result == null) {
                result = t;
            }
        }
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(30)));
        } catch (Throwable t) {
            LOGGER.warn("{}Closing the consumer failed: {}", logPrefix, t.toString());
        }
        if (result == null && sendFailed) {
            result = abortError();
        }
        return result;
    }

    private void startNeverCommitted(Set<TopicPartition> partitions) {
        switch (offsetReset) {
            case "earliest":
                consumer.seekToBeginning(partitions);
                break;
            case "latest":
                consumer.seekToEnd(partitions);
                break;
            default:
                throw new MirrorException("the group has no committed offset for " + partitions
                    + " and auto.offset.reset=none; commit a starting offset with kafka-consumer-groups --reset-offsets "
                    + "or set auto.offset.reset=earliest");
        }
        for (TopicPartition tp : partitions) {
            long position = consumer.position(tp);
            offsets.seeked(tp, position);
            LOGGER.info("{}No committed offset for {}: starting at offset {} (auto.offset.reset={})", logPrefix, tp,
                position, offsetReset);
        }
    }

    private void publishLag() {
        Map<TopicPartition, Long> lag = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            consumer.currentLag(tp).ifPresent(l -> lag.put(tp, l));
        }
        metrics.consumerLag(index, lag);
        metrics.positions(index, offsets.positions());
    }

    private Route buildRoute(TopicPartition tp) {
        TargetTopics.TargetTopic target = targetTopics.ensure(tp.topic(), settings.renamer().targetTopic(tp.topic()));
        if (settings.partitionMode() == dev.strait.mirror.config.PartitionMode.PRESERVE
            && tp.partition() >= target.partitions()) {
            LOGGER.warn("{}Target topic {} has {} partitions, fewer than source partition {} needs; its records go by key "
                + "hash instead. Add partitions to the target topic to keep partitions aligned.", logPrefix, target.name(),
                target.partitions(), tp);
        }
        Route route = new Route(target, tp.partition(), settings.partitionMode(),
            Provenance.prefix(sourceClusterId, sourceClusterId, tp.topic(), tp.partition()));
        routes.put(tp, route);
        return route;
    }

    private final class RebalanceListener implements ConsumerRebalanceListener {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            LOGGER.info("{}Partitions revoked: {}; flushing and committing them first", logPrefix, partitions);
            commit(partitions);
            forget(partitions);
        }

        @Override
        public void onPartitionsLost(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            LOGGER.warn("{}Partitions lost without a rebalance handshake: {}; their uncommitted records will be mirrored "
                + "again by their new owner", logPrefix, partitions);
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            LOGGER.info("{}Partitions assigned: {}", logPrefix, partitions);
            // Target topics are created here, before the first record of any of these partitions is fetched.
            Set<String> topics = new HashSet<>();
            for (TopicPartition tp : partitions) {
                if (topics.add(tp.topic())) {
                    targetTopics.refresh(settings.renamer().targetTopic(tp.topic()));
                }
                buildRoute(tp);
            }
        }

        private void forget(Collection<TopicPartition> partitions) {
            offsets.remove(partitions);
            partitions.forEach(routes::remove);
        }
    }

    private void transitionTo(State next) {
        State current = state;
        boolean legal;
        switch (next) {
            case RUNNING:
                legal = current == State.NEW;
                break;
            case STOPPING:
                legal = current == State.RUNNING;
                break;
            case STOPPED:
                legal = current == State.STOPPING;
                break;
            case FAILED:
                legal = current == State.RUNNING || current == State.STOPPING;
                break;
            default:
                legal = false;
        }
        if (!legal) {
            throw new IllegalStateException(logPrefix + "illegal transition " + current + " -> " + next);
        }
        state = next;
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while (cur instanceof KafkaException && cur.getCause() instanceof MirrorException) {
            cur = cur.getCause();
        }
        return cur;
    }
}
