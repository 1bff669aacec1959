package dev.strait.broker.group;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * What one operation of the coordinator produced: the records to append to the shard's offsets partition, and what
 * waits for them to be durable. The operation has already changed the in-memory group state; it returns the rest
 * instead of doing it, so that the coordinator can make one rule for all of them: responses are sent only once
 * the records (and every record appended before them) are on the partition's in-sync replicas, and state that
 * readers see as durable (committed offsets, deleted groups) changes only then.
 *
 * <p>Not thread-safe: built and consumed on the shard's loop.
 */
final class GroupResult {

    /** A response, and the error response to send instead if the records it waits for do not become durable. */
    record Response(Runnable send, Consumer<GroupError> fail) {}

    /** What to undo, or start over, when the records will not become durable in time (or at all). */
    @FunctionalInterface
    interface FailureHandler {
        void onFailed(GroupError error, long nowMs);
    }

    /** The producer whose transactional batch the records are (TxnOffsetCommit). */
    record Producer(long producerId, short producerEpoch) {}

    private final List<OffsetsLog.Entry> records = new ArrayList<>();
    private @Nullable Producer producer;
    /** Where the records went in the log; -1 until they are appended. */
    private long firstOffset = -1;

    private final List<Response> responses = new ArrayList<>();
    private final List<Runnable> onDurable = new ArrayList<>();
    private final List<FailureHandler> onFailed = new ArrayList<>();

    void write(OffsetsLog.Entry record) {
        records.add(record);
    }

    /** The records are written as one transactional batch of the producer, not as an ordinary batch. */
    void asTransactionOf(long producerId, short producerEpoch) {
        producer = new Producer(producerId, producerEpoch);
    }

    @Nullable
    Producer producer() {
        return producer;
    }

    /** The records were appended in one batch starting at {@code offset}. */
    void appendedAt(long offset) {
        firstOffset = offset;
    }

    /**
     * The log offset of the first record, once appended: the {@code i}th record is at {@code firstOffset() + i}. What
     * a transaction commits is compared with ordinary commits by these offsets, as Kafka orders them.
     */
    long firstOffset() {
        return firstOffset;
    }

    void respond(Runnable send, Consumer<GroupError> fail) {
        responses.add(new Response(send, fail));
    }

    void join(Consumer<GroupApi.JoinResult> callback, GroupApi.JoinResult result) {
        respond(
                () -> callback.accept(result),
                error -> callback.accept(GroupApi.JoinResult.error(error, result.memberId())));
    }

    void sync(Consumer<GroupApi.SyncResult> callback, GroupApi.SyncResult result) {
        respond(() -> callback.accept(result), error -> callback.accept(GroupApi.SyncResult.error(error)));
    }

    /** State to change once the records are durable (runs exactly then, also after a timeout was answered). */
    void onDurable(Runnable change) {
        onDurable.add(change);
    }

    void onFailed(FailureHandler handler) {
        onFailed.add(handler);
    }

    List<OffsetsLog.Entry> records() {
        return records;
    }

    List<Response> responses() {
        return responses;
    }

    boolean isEmpty() {
        return records.isEmpty() && responses.isEmpty() && onDurable.isEmpty();
    }

    /** The records are durable: changes first, then the responses that report them. */
    void completeDurable() {
        applyDurableChanges();
        responses.forEach(r -> r.send().run());
    }

    void applyDurableChanges() {
        onDurable.forEach(Runnable::run);
    }

    /** Error responses instead (each sent once, by the caller's bookkeeping), and the failure handlers. */
    void failResponses(GroupError error) {
        responses.forEach(r -> r.fail().accept(error));
    }

    void runFailureHandlers(GroupError error, long nowMs) {
        onFailed.forEach(h -> h.onFailed(error, nowMs));
    }
}
