package dev.strait.broker.group;

import dev.strait.broker.ManualScheduler;
import java.util.concurrent.TimeUnit;

/**
 * The broker's real loop threads ({@link ThreadShardLoops}), with the ticks made due by a {@link ManualScheduler}
 * instead of the executor's timer: a tick is handed to its shard's loop, as the executor would hand it, when the
 * test moves the clock, so a test can make ticks come due at the exact moment it wants (while a request holds the
 * loop) and still see which thread runs them.
 */
final class ManualTickShardLoops implements ShardLoops {

    private final ThreadShardLoops loops;
    private final ManualScheduler timer;

    ManualTickShardLoops(int threads, ManualScheduler timer) {
        this.loops = new ThreadShardLoops(threads);
        this.timer = timer;
    }

    @Override
    public void execute(int shard, Runnable task) {
        loops.execute(shard, task);
    }

    @Override
    public void scheduleEvery(int shard, long periodMs, Runnable task) {
        timer.schedule(
                () -> {
                    loops.execute(shard, task);
                    scheduleEvery(shard, periodMs, task);
                },
                periodMs,
                TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        loops.close();
    }
}
