package dev.strait.mirror.engine;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.offsets.OffsetTracker;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.NoOffsetForPartitionException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnreleasedInstanceIdException;
import org.jspecify.annotations.Nullable;
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
 * <p>The no-loss rule: a source offset is committed only after the producer was flushed, and never past a
 * copy the target has not acknowledged or that failed (the {@link SendTracker} says which offset is owed;
 * {@link OffsetTracker} what was polled). Partitions revoked in a rebalance are flushed and committed first,
 * inside the rebalance callback. What each record becomes on the target is the {@link RecordRouter}'s call.
 *
 * <p>Threading: everything here runs on the stream's own thread, except {@link SendCallback}, which the
 * producer's I/O thread runs; it touches only the send tracker, the failure-log counters and the metrics.
 */
final class MirrorStream implements Runnable {
    private static final Logger LOGGER = LoggerFactory.getLogger(MirrorStream.class);
    private static final Duration POLL_TIMEOUT = Duration.ofMillis(100);
    private static final Duration COMMIT_TIMEOUT = Duration.ofSeconds(60);
    /** How long a stopping stream lets a rebalance complete so that its last commit lands: 50 polls of 200 ms. */
    private static final int REBALANCE_POLLS_BEFORE_CLOSE = 50;

    private static final Duration REBALANCE_POLL_BEFORE_CLOSE = Duration.ofMillis(200);
    private static final long LAG_PUBLISH_INTERVAL_MS = 1000;
    private static final long FAILURE_LOG_INTERVAL_MS = 1000;

    enum State {
        NEW,
        RUNNING,
        STOPPING,
        STOPPED,
        FAILED
    }

    private final int index;
    private final String logPrefix;
    private final MirrorConfig settings;
    private final Consumer<byte[], byte[]> consumer;
    private final Producer<byte[], byte[]> producer;
    private final MirrorMetrics metrics;
    private final Time time;
    private final SourceTruncationHandler truncation;
    private final String offsetReset;

    private final OffsetTracker offsets = new OffsetTracker();
    private final RecordRouter router;
    private final SendTracker sends;
    private final AcknowledgementListener listener;
    private final RecordSizer sizer;

    // Written by the producer's I/O thread, read by the stream thread.
    private final AtomicLong lastFailureLogMs = new AtomicLong();
    private final AtomicLong suppressedFailureLogs = new AtomicLong();

    /** Set by a failure of the target or the path to it (not of one record): nothing is flushed after it. */
    private volatile boolean systemicFailure;
    /** When the stream last moved: a poll handed records over, or the target acknowledged a copy. */
    private volatile long lastProgressMs;

    private volatile boolean stopRequested;
    private volatile State state = State.NEW;
    private long nextCommitMs;
    /** Consumer lag summed over the assignment at the last publish; read by {@link #stalledForMs}. */
    private volatile long lastLag;

    private long nextLagMs;

    /** See {@link HandOverDeadline}: past it, no more of the last poll's records go to the producer. */
    private final long handOverAfterPollMs;
    /** When the stream last called poll. */
    private long lastPollMs;
    /** Set once the deadline passed while the stream handed a poll's records over; cleared by the next poll. */
    private boolean handOverStopped;

    MirrorStream(
            int index,
            MirrorConfig settings,
            Consumer<byte[], byte[]> consumer,
            Producer<byte[], byte[]> producer,
            RecordRouter.Targets targets,
            String sourceClusterId,
            String targetClusterId,
            MirrorMetrics metrics,
            Time time,
            String offsetReset,
            RecordSizer sizer,
            AcknowledgementListener listener,
            java.util.function.Function<String, String> sourceTopicIds) {
        this.index = index;
        this.logPrefix = "[stream " + index + "] ";
        this.settings = settings;
        this.consumer = consumer;
        this.producer = producer;
        this.metrics = metrics;
        this.time = time;
        this.offsetReset = offsetReset;
        this.sizer = sizer;
        this.router = new RecordRouter(settings, targets, sourceClusterId, targetClusterId, logPrefix);
        this.sends = new SendTracker(listener);
        this.listener = listener;
        this.handOverAfterPollMs = HandOverDeadline.afterPollMs(settings.consumerConfig());
        this.truncation = new SourceTruncationHandler(
                consumer, offsets, settings.onSourceTruncation(), metrics, logPrefix, sourceTopicIds);
        metrics.streamState(index, state.name());
    }

    State state() {
        return state;
    }

    /**
     * How long the stream has made no progress while it had work: copies in flight or records on the
     * source it has not read. 0 when it is idle with nothing to do, or moving.
     */
    long stalledForMs(long nowMs) {
        if (state != State.RUNNING || sends.outstanding() == 0 && lastLag == 0) {
            return 0;
        }
        return Math.max(0, nowMs - lastProgressMs);
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
            lastProgressMs = now;
            pollLoop();
        } catch (Throwable t) {
            fatal = explainMembershipConflict(unwrap(t));
        }
        if (fatal == null) {
            transitionTo(State.STOPPING);
        }
        fatal = finish(fatal);
        transitionTo(fatal == null ? State.STOPPED : State.FAILED);
        metrics.forgetStream(index);
        if (fatal != null) {
            throw fatal instanceof MirrorException
                    ? (MirrorException) fatal
                    : new MirrorException(fatal.toString(), fatal);
        }
    }

    private void pollLoop() {
        while (!stopRequested) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                lastPollMs = time.milliseconds();
                records = consumer.poll(POLL_TIMEOUT);
            } catch (NoOffsetForPartitionException e) {
                startNeverCommitted(e.partitions());
                continue;
            } catch (LogTruncationException e) {
                // Caught before its superclass: the divergence point, not the old position, is where to look.
                truncation.diverged(e.divergentOffsets(), e.offsetOutOfRangePartitions());
                continue;
            } catch (OffsetOutOfRangeException e) {
                truncation.handle(e.offsetOutOfRangePartitions());
                continue;
            } catch (GroupAuthorizationException | TopicAuthorizationException e) {
                throw new MirrorException(SendFailures.sourceDenied(e), e);
            }
            if (!records.isEmpty() || !records.nextOffsets().isEmpty()) {
                mirror(records);
            }
            if (sends.failed()) {
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
        handOverStopped = false;
        Map<TopicPartition, OffsetAndMetadata> next = records.nextOffsets();
        List<TopicPartition> polled = new ArrayList<>(records.partitions());
        for (int i = 0; i < polled.size(); i++) {
            TopicPartition tp = polled.get(i);
            List<ConsumerRecord<byte[], byte[]>> batch = records.records(tp);
            Route route = router.routeFor(tp);
            long bytes = 0;
            ConsumerRecord<byte[], byte[]> lastHanded = null;
            for (ConsumerRecord<byte[], byte[]> record : batch) {
                if (sends.failed()) {
                    // Stop handing records over at once: each further send to a dead target could block for
                    // max.block.ms. The position moves only past what was handed over (the commit stops at the
                    // failed record anyway), so nothing unsent is committed.
                    if (lastHanded != null) {
                        offsets.polled(tp, lastHanded.offset(), lastHanded.leaderEpoch());
                    }
                    return;
                }
                if (lastHanded == null || !lastHanded.leaderEpoch().equals(record.leaderEpoch())) {
                    // A commit held back at an owed record names the epoch of the record before it (see OffsetTracker).
                    offsets.leaderEpochAt(tp, record.offset(), record.leaderEpoch());
                }
                bytes += payloadBytes(record);
                mirrorOne(tp, route, record);
                if (handOverStopped) {
                    // This record and the rest of the poll were not handed over: the consumer reads them again after
                    // the next poll if the partitions are still ours; if they were lost, their new owner copies them.
                    if (lastHanded != null) {
                        offsets.polled(tp, lastHanded.offset(), lastHanded.leaderEpoch());
                    }
                    readAgainFrom(tp, record.offset());
                    for (TopicPartition rest : polled.subList(i + 1, polled.size())) {
                        readAgainFrom(rest, records.records(rest).get(0).offset());
                    }
                    return;
                }
                lastHanded = record;
            }
            // Only after every record of the batch was handed to the producer may the position be committed.
            advance(tp, next.get(tp), batch.get(batch.size() - 1));
            metrics.consumed(batch.size(), bytes);
        }
        if (sends.failed()) {
            return;
        }
        // Partitions whose position moved past offsets that hold no record for us (transaction markers, aborted
        // records): committing the position, not the last record + 1, is what lets an idle transactional
        // partition reach lag 0.
        next.forEach((tp, om) -> {
            if (!records.partitions().contains(tp) && om.offset() > offsets.position(tp)) {
                offsets.advanced(tp, om);
            }
        });
        lastProgressMs = time.milliseconds();
    }

    /** Moves the consumer back to {@code offset}, the first record of {@code tp} not handed over. */
    private void readAgainFrom(TopicPartition tp, long offset) {
        consumer.seek(tp, new OffsetAndMetadata(offset, offsets.leaderEpochBefore(tp, offset), ""));
    }

    /**
     * True once the stream has been held up so long since its last poll (a slow handler, a send blocked on a full
     * producer buffer, the whole process paused) that its partitions may belong to another member by now; see
     * {@link HandOverDeadline}.
     */
    private boolean pastHandOverDeadline() {
        if (handOverStopped) {
            return true;
        }
        long heldMs = time.milliseconds() - lastPollMs;
        if (heldMs < handOverAfterPollMs) {
            return false;
        }
        handOverStopped = true;
        LOGGER.warn(
                "{}{} ms since the last poll, past the {} ms after which the group may give this stream's partitions "
                        + "to another member (max.poll.interval.ms, session.timeout.ms): the rest of the poll's records are "
                        + "not handed to the producer, but read again after the next poll, so that no copy of them lands "
                        + "between a new owner's copies",
                logPrefix,
                heldMs,
                handOverAfterPollMs);
        return true;
    }

    private void advance(TopicPartition tp, @Nullable OffsetAndMetadata next, ConsumerRecord<byte[], byte[]> last) {
        if (next != null && next.offset() > last.offset()) {
            offsets.advanced(tp, next);
        } else {
            offsets.polled(tp, last.offset(), last.leaderEpoch());
        }
    }

    private void mirrorOne(TopicPartition tp, Route route, ConsumerRecord<byte[], byte[]> record) {
        RecordRouter.Verdict verdict;
        try {
            verdict = router.route(route, record, (out, maxMessageBytes) -> send(out, tp, record, maxMessageBytes));
        } catch (RecordRouter.HandlerFailedException e) {
            onSendFailure(sends.begin(tp, record.offset()), e);
            return;
        }
        if (verdict == RecordRouter.Verdict.DROPPED_BY_LOOP_PREVENTION) {
            metrics.droppedByLoopPrevention();
            tellOriginal(tp, record);
        } else if (verdict == RecordRouter.Verdict.DROPPED_BY_HANDLER) {
            metrics.droppedByHandler();
        }
    }

    /** Tells the listener where the target record that a dropped copy stands for is (its provenance says). */
    private void tellOriginal(TopicPartition tp, ConsumerRecord<byte[], byte[]> record) {
        try {
            Provenance p = Objects.requireNonNull(router.droppedCopyOf(), "set as the router dropped this copy");
            listener.original(tp, record.offset(), new TopicPartition(p.topic(), p.partition()), p.offset());
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "{}Acknowledgement listener failed for the original of {}@{}: {}",
                    logPrefix,
                    tp,
                    record.offset(),
                    e.toString());
        }
    }

    /** Key and value bytes as read from the source (-1 sizes mean null). */
    private static int payloadBytes(ConsumerRecord<byte[], byte[]> record) {
        return Math.max(0, record.serializedKeySize()) + Math.max(0, record.serializedValueSize());
    }

    private static @Nullable Long timestampOf(ConsumerRecord<byte[], byte[]> record) {
        return record.timestamp() == ConsumerRecord.NO_TIMESTAMP ? null : record.timestamp();
    }

    private void send(
            ProducerRecord<byte[], byte[]> out,
            TopicPartition tp,
            ConsumerRecord<byte[], byte[]> source,
            int maxMessageBytes) {
        if (pastHandOverDeadline()) {
            return;
        }
        SendTracker.Send ticket = sends.begin(tp, source.offset());
        int limit = maxMessageBytes;
        int oversize = sizer.oversizeBytes(out, limit);
        if (oversize > 0) {
            // The route's limit dates from when the partition was assigned; the target may take more now (the
            // config sync raised it). Refused only against the target's current value.
            limit = router.currentMaxMessageBytes(source.topic(), out.topic());
            oversize = limit == maxMessageBytes ? oversize : sizer.oversizeBytes(out, limit);
        }
        if (oversize > 0) {
            onSendFailure(
                    ticket,
                    new RecordTooLargeException("the record is " + oversize + " bytes, more than "
                            + "max.message.bytes=" + limit + " of target topic " + out.topic()));
            return;
        }
        SendCallback callback = new SendCallback(ticket, source.timestamp(), payloadBytes(source));
        try {
            producer.send(out, callback);
        } catch (RuntimeException e) {
            callback.onCompletion(null, e);
        }
    }

    /** Runs on the producer's I/O thread once the target acknowledged or rejected one record. */
    private final class SendCallback implements Callback {
        private final SendTracker.Send ticket;
        private final long timestampMs;
        private final int bytes;

        SendCallback(SendTracker.Send ticket, long timestampMs, int bytes) {
            this.ticket = ticket;
            this.timestampMs = timestampMs;
            this.bytes = bytes;
        }

        @Override
        public void onCompletion(@Nullable RecordMetadata metadata, @Nullable Exception exception) {
            if (exception == null) {
                long now = time.milliseconds();
                lastProgressMs = now;
                metrics.produced(bytes, now - timestampMs);
                RecordMetadata sent =
                        Objects.requireNonNull(metadata, "Kafka passes the metadata of a send that succeeded");
                ticket.acknowledged(new TopicPartition(sent.topic(), sent.partition()), sent.offset());
            } else {
                onSendFailure(ticket, exception);
            }
        }
    }

    /**
     * A copy the target did not take. With abort.on.send.failure the stream stops without committing past
     * it. Without, only a failure of that one record (too large, invalid, the handler threw for it) is
     * counted, logged and skipped; a failure of the target or the path to it (delivery timeout, authorization,
     * a fatal producer error) would skip every record sent meanwhile, so it stops the stream all the same.
     */
    private void onSendFailure(SendTracker.Send ticket, Exception cause) {
        metrics.sendError();
        SendFailure failure = new SendFailure(ticket.source(), ticket.offset(), cause);
        boolean recordLevel = SendFailures.isRecordLevel(cause);
        boolean skippable = !settings.abortOnSendFailure() && recordLevel;
        if (!recordLevel) {
            systemicFailure = true;
        }
        if (!skippable) {
            boolean first = !sends.failed();
            ticket.failed(cause, false);
            if (first) {
                LOGGER.error(
                        "{}Send of source record {} to the target failed: {}; stopping without committing past it "
                                + "({})",
                        logPrefix,
                        failure.describe(),
                        cause.toString(),
                        settings.abortOnSendFailure()
                                ? "abort.on.send.failure=true"
                                : "not a failure of this record alone, so not skipped even with "
                                        + "abort.on.send.failure=false");
            }
            return;
        }
        ticket.failed(cause, true);
        long now = time.milliseconds();
        long last = lastFailureLogMs.get();
        if (now - last >= FAILURE_LOG_INTERVAL_MS && lastFailureLogMs.compareAndSet(last, now)) {
            long suppressed = suppressedFailureLogs.getAndSet(0);
            LOGGER.warn(
                    "{}Skipping source record {}: send to the target failed: {} (abort.on.send.failure=false{})",
                    logPrefix,
                    failure.describe(),
                    cause.toString(),
                    suppressed > 0 ? "; " + suppressed + " more skipped since the last report" : "");
        } else {
            suppressedFailureLogs.incrementAndGet();
        }
    }

    private MirrorException abortError() {
        SendFailure earliest = sends.firstFailure();
        // Name the lowest failed offset of the partition that failed first: that is where the commit stopped.
        long lowest = sends.firstFailed().getOrDefault(earliest.source(), earliest.offset());
        SendFailure first =
                lowest == earliest.offset() ? earliest : new SendFailure(earliest.source(), lowest, earliest.cause());
        return new MirrorException(
                "send of source record " + first.describe() + " (topic "
                        + first.source().topic()
                        + ", partition " + first.source().partition() + ", offset " + first.offset() + ") failed: "
                        + first.cause()
                        + "; offsets were committed up to it, not past it. " + SendFailures.advice(first.cause()),
                first.cause());
    }

    /**
     * Flushes the producer, then commits for {@code partitions} everything the target acknowledged, never
     * past a failed record. A commit that fails (rebalance, timeout) is logged: the records since the last
     * commit will be mirrored again, as duplicates, never lost.
     *
     * @return false when the commit failed because the group is rebalancing (a poll completes the rebalance)
     */
    private boolean commit(Collection<TopicPartition> partitions) {
        if (partitions.isEmpty()) {
            return true;
        }
        if (!systemicFailure && !sends.pendingBeyondAFailure()) {
            try (var ignored = metrics.timeFlush()) {
                producer.flush();
            }
        }
        // After a failure of the target or the path to it, or with copies in flight behind a failed record,
        // nothing is flushed: they would land after the gap the failed record left, and the restart would copy it
        // after them, out of order. What was acknowledged is committed as is. After a record-level failure with
        // nothing behind it (a record too large, refused before it was sent) the records before it are flushed
        // and committed, up to it.
        // Never past a copy still owed: unacknowledged (whatever flush() promised) or failed and not skipped.
        Map<TopicPartition, OffsetAndMetadata> toCommit = offsets.commitOffsets(partitions, sends.owed());
        if (toCommit.isEmpty()) {
            return true;
        }
        try (var ignored = metrics.timeCommit()) {
            consumer.commitSync(toCommit, COMMIT_TIMEOUT);
            offsets.committed(toCommit);
            LOGGER.debug("{}Committed {}", logPrefix, toCommit);
            return true;
        } catch (CommitFailedException | RebalanceInProgressException | RetriableException e) {
            metrics.commitFailed();
            LOGGER.warn(
                    "{}Offset commit failed ({}); records mirrored since the last commit may be mirrored again "
                            + "after a restart or rebalance (duplicates, not loss)",
                    logPrefix,
                    e.toString());
            return !(e instanceof RebalanceInProgressException);
        }
    }

    /**
     * The last commit before the consumer closes. A stop that lands while the group rebalances (a process joining
     * or leaving at the same moment) finds the consumer unable to commit until the rebalance completes, and closing
     * then would hand every partition over uncommitted (as lost), to be copied again by its next owner. So the
     * consumer completes the rebalance first, taking no records (every partition it holds paused; records of a
     * partition it is newly given are dropped uncommitted, its next owner copies them), and commits again: what it
     * still holds, and what the rebalance takes away through the revocation callback.
     */
    private void commitBeforeClose() {
        for (int attempt = 0; attempt < REBALANCE_POLLS_BEFORE_CLOSE; attempt++) {
            if (commit(new ArrayList<>(offsets.tracked()))) {
                return;
            }
            consumer.pause(consumer.assignment());
            consumer.poll(REBALANCE_POLL_BEFORE_CLOSE);
        }
        LOGGER.warn(
                "{}The group kept rebalancing while this stream stopped; its records since the last commit will be "
                        + "mirrored again by the partitions' next owners (duplicates, not loss)",
                logPrefix);
    }

    /** Final flush and commit, then close the consumer. Returns the error the stream ends with, if any. */
    private @Nullable Throwable finish(@Nullable Throwable fatal) {
        Throwable result = fatal;
        try {
            commitBeforeClose();
        } catch (Throwable t) {
            LOGGER.warn(
                    "{}Final commit failed: {}; uncommitted records will be mirrored again", logPrefix, t.toString());
            if (result == null) {
                result = t;
            }
        }
        try {
            consumer.close(CloseOptions.timeout(Duration.ofSeconds(30)));
        } catch (Throwable t) {
            LOGGER.warn("{}Closing the consumer failed: {}", logPrefix, t.toString());
        }
        if (result == null && sends.failed()) {
            result = abortError();
        }
        return result;
    }

    private void startNeverCommitted(Set<TopicPartition> named) {
        // The consumer of the consumer rebalance protocol (KIP-848) can name partitions that a revocation in the
        // same poll took away; seeking them would throw.
        Set<TopicPartition> partitions = new java.util.HashSet<>(named);
        partitions.retainAll(consumer.assignment());
        if (partitions.isEmpty()) {
            return;
        }
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
            long position;
            try {
                position = consumer.position(tp);
            } catch (NoOffsetForPartitionException e) {
                // The consumer of the consumer protocol can reconcile a new assignment between the seek and this look
                // (the seek is then forgotten and its own reset policy, none, applies): the next poll names the
                // partition again and it is sought again.
                LOGGER.debug(
                        "{}{} lost its seek to a reconciliation; seeking again after the next poll", logPrefix, tp);
                continue;
            }
            offsets.seeked(tp, position);
            LOGGER.info(
                    "{}No committed offset for {}: starting at offset {} (auto.offset.reset={})",
                    logPrefix,
                    tp,
                    position,
                    offsetReset);
        }
    }

    private void publishLag() {
        Map<TopicPartition, Long> lag = new HashMap<>();
        long total = 0;
        for (TopicPartition tp : consumer.assignment()) {
            java.util.OptionalLong l = consumer.currentLag(tp);
            if (l.isPresent()) {
                lag.put(tp, l.getAsLong());
                total += l.getAsLong();
            }
        }
        lastLag = total;
        metrics.consumerLag(index, lag);
        metrics.positions(index, offsets.positions());
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
            // The group gave these partitions to another member before this callback ran (session timeout, or a
            // poll too late); the new owner copies them again from the last commit. Copies this stream handed over
            // after its hand-over deadline are none (see HandOverDeadline); those handed over before it and still in
            // flight now cannot be recalled: the producer is shared by every stream, and closing it would fail the
            // other partitions' copies and still not recall batches already on the wire. Waiting for them here
            // would not help either: the new owner is already copying. So they are counted and named, and land as
            // duplicates of records after the last commit.
            long inFlight = sends.inFlight(partitions);
            LOGGER.warn(
                    "{}Partitions lost without a rebalance handshake: {}; their uncommitted records will be mirrored "
                            + "again by their new owner ({} copies of them were still in flight and may land after the new "
                            + "owner's first copies)",
                    logPrefix,
                    partitions,
                    inFlight);
            forget(partitions);
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
            if (partitions.isEmpty()) {
                return;
            }
            LOGGER.info("{}Partitions assigned: {}", logPrefix, partitions);
            startAtCommitted(partitions);
            // Target topics are created here, before the first record of any of these partitions is fetched.
            router.assigned(partitions);
            partitions.stream().map(TopicPartition::topic).distinct().forEach(truncation::assigned);
        }

        /**
         * Tells the offset tracker where each partition starts and the leader epoch of that position, so that a
         * commit held back at the start (the first record still owed) keeps the epoch the restart validates with.
         */
        private void startAtCommitted(Collection<TopicPartition> partitions) {
            Map<TopicPartition, OffsetAndMetadata> committed;
            try {
                committed = consumer.committed(Set.copyOf(partitions), COMMIT_TIMEOUT);
            } catch (RetriableException e) {
                LOGGER.warn(
                        "{}Could not read the committed offsets of {} ({}); a commit before the first record read "
                                + "carries no leader epoch",
                        logPrefix,
                        partitions,
                        e.toString());
                return;
            }
            committed.forEach((tp, om) -> {
                if (om != null) {
                    offsets.startedAt(tp, om);
                }
            });
        }

        private void forget(Collection<TopicPartition> partitions) {
            offsets.remove(partitions);
            router.forget(partitions);
            sends.forget(partitions);
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
        metrics.streamState(index, next.name());
    }

    /**
     * Kafka says only that "another consumer with the same group.instance.id" took the stream's static member id;
     * with ids derived per stream that is another process given the same group.instance.id, and the fix is there.
     */
    private Throwable explainMembershipConflict(Throwable t) {
        if (!(t instanceof FencedInstanceIdException) && !(t instanceof UnreleasedInstanceIdException)) {
            return t;
        }
        Properties user = settings.consumerConfig();
        return new MirrorException(
                "another consumer of group " + user.getProperty(ConsumerConfig.GROUP_ID_CONFIG)
                        + " uses the static member id " + ClientConfigs.staticMemberId(user, index) + " of stream "
                        + index + " (" + t.getMessage() + "): most likely another mirror process with the same "
                        + "group.instance.id; give each mirror process a group.instance.id of its own (each "
                        + "stream adds -<stream index> to it)",
                t);
    }

    private static Throwable unwrap(Throwable t) {
        Throwable cur = t;
        while (cur instanceof KafkaException && cur.getCause() instanceof MirrorException) {
            cur = cur.getCause();
        }
        return cur;
    }
}
