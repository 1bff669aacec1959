package dev.strait.broker.group;

import java.util.HashMap;
import java.util.Map;

/**
 * One shard of the coordinator, the state behind one offsets partition: its groups, their committed offsets, and
 * the writes not yet durable. Used only by tasks on the shard's loop, except {@link #status}, which the protocol
 * adapter's routing reads on the network handler threads.
 */
final class GroupShard {

    /**
     * Whether this node serves the shard: NOT_COORDINATOR &rarr; LOADING (replayed, waiting for what it replayed to be
     * durable) &rarr; ACTIVE; back to NOT_COORDINATOR from any when the leadership ends or the load fails.
     */
    enum Status {
        NOT_COORDINATOR,
        LOADING,
        ACTIVE
    }

    final int index;
    final int initialRebalanceDelayMs;
    final Map<String, ClassicGroup> groups = new HashMap<>();
    /** The consumer groups (KIP-848); a group id is in one of the two maps (an Empty classic group aside). */
    final Map<String, ConsumerGroup> consumerGroups = new HashMap<>();

    int consumerSessionTimeoutMs = 45_000;
    int consumerHeartbeatIntervalMs = 5_000;
    final OffsetManager offsets = new OffsetManager();
    /** Offsets of open transactions, not committed offsets until their transaction commits. */
    final TransactionalOffsets transactionalOffsets = new TransactionalOffsets();

    final PendingWrites writes = new PendingWrites();
    volatile Status status = Status.NOT_COORDINATOR;

    GroupShard(int index, int initialRebalanceDelayMs) {
        this.index = index;
        this.initialRebalanceDelayMs = initialRebalanceDelayMs;
    }

    /**
     * NONE if the shard serves now, else what a request for it is told. Checked by each task on the loop: the
     * protocol adapter's check on the handler thread can be overtaken by a leadership change queued before it.
     */
    GroupError unavailable() {
        return switch (status) {
            case ACTIVE -> GroupError.NONE;
            case LOADING -> GroupError.COORDINATOR_LOAD_IN_PROGRESS;
            case NOT_COORDINATOR -> GroupError.NOT_COORDINATOR;
        };
    }

    ClassicGroup newGroup(String groupId) {
        return new ClassicGroup(groupId, initialRebalanceDelayMs);
    }

    ConsumerGroup newConsumerGroup(String groupId) {
        return new ConsumerGroup(groupId, consumerSessionTimeoutMs, consumerHeartbeatIntervalMs);
    }

    /** Drops everything of the shard; whoever waits hears {@code error} now and finds the new coordinator. */
    void reset(GroupError error, long nowMs) {
        status = Status.NOT_COORDINATOR;
        for (ClassicGroup group : groups.values()) {
            group.abandon(error);
        }
        writes.failAll(error, nowMs);
        groups.clear();
        consumerGroups.clear();
        offsets.clear();
        transactionalOffsets.clear();
    }
}
