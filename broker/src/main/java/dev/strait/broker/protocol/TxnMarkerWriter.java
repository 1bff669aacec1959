package dev.strait.broker.protocol;

import dev.strait.broker.partition.DelayedOperation;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.replication.ProduceCheck;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;

/**
 * Writes a transaction coordinator's commit or abort markers into the partitions this node leads, and answers once
 * each is replicated (its high watermark passed the marker in the epoch it was written in), as WriteTxnMarkers
 * answers: a marker counts only when the next leader has it too. Serves the WriteTxnMarkers handler (markers from
 * a coordinator on another node, or from {@code kafka-transactions abort}) and the coordinator's own marker sender
 * for partitions led here. A marker that lands in the offsets topic also completes the transaction's offset
 * commits there ({@link CompletionListener}).
 *
 * <p>Thread-safe: the answer is given exactly once, on whichever thread completes the wait.
 */
final class TxnMarkerWriter {

    /** Told when a marker is durable in a partition (the group coordinator, for {@code __consumer_offsets}). */
    @FunctionalInterface
    interface CompletionListener {
        void onMarkerDurable(TopicPartition partition, long producerId, boolean commit, long markerOffset);
    }

    /** The markers of one producer's transaction to write here. */
    record Request(
            long producerId,
            short producerEpoch,
            boolean commit,
            int coordinatorEpoch,
            List<TopicPartition> partitions) {}

    private final ReplicaManager replicaManager;
    private final CompletionListener listener;
    private final long timeoutMs;

    TxnMarkerWriter(ReplicaManager replicaManager, CompletionListener listener, long timeoutMs) {
        this.replicaManager = replicaManager;
        this.listener = listener;
        this.timeoutMs = timeoutMs;
    }

    /** Writes the markers and hands each partition's error (NONE once replicated) to {@code done}, once. */
    void write(Request request, Consumer<Map<TopicPartition, Errors>> done) {
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        List<Waiting> waiting = new ArrayList<>();
        for (TopicPartition tp : request.partitions()) {
            try {
                Partition.MarkerAppend append = replicaManager.appendMarker(
                        tp,
                        request.producerId(),
                        request.producerEpoch(),
                        request.commit(),
                        request.coordinatorEpoch());
                switch (append.outcome()) {
                    case APPENDED -> waiting.add(new Waiting(tp, append.lastOffset(), append.leaderEpoch()));
                    case PRODUCER_FENCED -> errors.put(tp, Errors.INVALID_PRODUCER_EPOCH);
                    case COORDINATOR_FENCED -> errors.put(tp, Errors.TRANSACTION_COORDINATOR_FENCED);
                }
            } catch (RuntimeException e) {
                errors.put(tp, ApiErrors.forException(e));
            }
        }
        if (waiting.isEmpty()) {
            done.accept(errors);
            return;
        }
        replicaManager
                .producePurgatory()
                .tryCompleteElseWatch(
                        new DelayedMarkers(request, waiting, errors, done),
                        waiting.stream().map(Waiting::partition).distinct().toList(),
                        timeoutMs);
    }

    private record Waiting(TopicPartition partition, long lastOffset, int leaderEpoch) {}

    private final class DelayedMarkers extends DelayedOperation {
        private final Request request;
        private final List<Waiting> waiting;
        private final Map<TopicPartition, Errors> errors;
        private final Consumer<Map<TopicPartition, Errors>> done;

        DelayedMarkers(
                Request request,
                List<Waiting> waiting,
                Map<TopicPartition, Errors> errors,
                Consumer<Map<TopicPartition, Errors>> done) {
            this.request = request;
            this.waiting = waiting;
            this.errors = errors;
            this.done = done;
        }

        private ProduceCheck check(Waiting w) {
            return replicaManager
                    .partition(w.partition())
                    .map(p -> p.checkProduceCompletion(w.lastOffset(), w.leaderEpoch()))
                    .orElse(ProduceCheck.NOT_LEADER);
        }

        @Override
        protected boolean isSatisfied() {
            for (Waiting w : waiting) {
                if (check(w) == ProduceCheck.PENDING) {
                    return false;
                }
            }
            return true;
        }

        @Override
        protected void onComplete() {
            Map<TopicPartition, Errors> answer = new HashMap<>(errors);
            for (Waiting w : waiting) {
                Errors error = switch (check(w)) {
                    case OK -> Errors.NONE;
                    case NOT_ENOUGH_REPLICAS_AFTER_APPEND -> Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
                    case PENDING -> Errors.REQUEST_TIMED_OUT;
                    default -> Errors.NOT_LEADER_OR_FOLLOWER;
                };
                answer.put(w.partition(), error);
                if (error == Errors.NONE) {
                    listener.onMarkerDurable(w.partition(), request.producerId(), request.commit(), w.lastOffset());
                }
            }
            done.accept(answer);
        }
    }
}
