package dev.strait.broker.group;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The broker's shard loops: a few threads, each a single-threaded scheduled executor that owns a fixed set of shards
 * (shard {@code i} on thread {@code i % threads}), so a shard always runs on the same thread and shards on
 * different threads run in parallel. The periodic tick is scheduled by the executor; what the tick reads as the time
 * is the coordinator's injected clock.
 */
final class ThreadShardLoops implements ShardLoops {

    private final ScheduledExecutorService[] threads;

    /** @param threads how many loop threads; the shards are spread over them */
    ThreadShardLoops(int threads) {
        this.threads = new ScheduledExecutorService[Math.max(1, threads)];
        for (int i = 0; i < this.threads.length; i++) {
            String name = "strait-group-coordinator-" + i;
            this.threads[i] = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, name);
                thread.setDaemon(true);
                return thread;
            });
        }
    }

    private ScheduledExecutorService loop(int shard) {
        return threads[shard % threads.length];
    }

    @Override
    public void execute(int shard, Runnable task) {
        loop(shard).execute(task);
    }

    @Override
    public void scheduleEvery(int shard, long periodMs, Runnable task) {
        loop(shard).scheduleWithFixedDelay(task, periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    /**
     * Lets the task at hand finish without interrupting it (an interrupt during a log append would close the log's
     * file channel); the ticks stop, and the coordinator turns the queued tasks into no-ops before it closes us.
     */
    @Override
    public void close() {
        for (ScheduledExecutorService thread : threads) {
            thread.shutdown();
        }
        for (ScheduledExecutorService thread : threads) {
            try {
                if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                    thread.shutdownNow();
                }
            } catch (InterruptedException e) {
                thread.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
    }
}
