package dev.strait.broker.group;

import java.util.concurrent.RejectedExecutionException;

/**
 * Where the coordinator's shards run: each shard is owned by one event loop, which runs the shard's tasks one at a
 * time, in the order they were submitted, and never two at once. The coordinator hands every operation on a shard
 * (requests, the expiry tick, leadership changes, replication progress) to its loop, so a shard's state needs no
 * lock. Injectable: the broker runs {@link ThreadShardLoops}; a simulation runs every shard on the simulation's one
 * thread, in the order it decides, with ticks on its fake clock.
 */
public interface ShardLoops extends AutoCloseable {

    /**
     * Runs {@code task} on the loop of {@code shard}, after every task submitted for that shard before it.
     *
     * @throws RejectedExecutionException once closed
     */
    void execute(int shard, Runnable task);

    /** Runs {@code task} on the loop of {@code shard} every {@code periodMs}, the first time after one period. */
    void scheduleEvery(int shard, long periodMs, Runnable task);

    /** Stops the loops; tasks not started yet are dropped. */
    @Override
    void close();
}
