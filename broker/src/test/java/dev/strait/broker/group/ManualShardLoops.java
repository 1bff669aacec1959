package dev.strait.broker.group;

import dev.strait.time.Time;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;

/**
 * Shard loops run by the test's own thread: every task queues in one FIFO (so each shard's tasks run in the order
 * they were submitted, and never two at once), and runs only when the test calls {@link #runAll}; periodic tasks
 * (the coordinator's tick) become due on the test's fake clock. Nothing here depends on real time or threads, so a
 * seeded run replays exactly.
 */
final class ManualShardLoops implements ShardLoops {

    private static final class Periodic {
        final Runnable task;
        final long periodMs;
        long nextMs;

        Periodic(Runnable task, long periodMs, long nextMs) {
            this.task = task;
            this.periodMs = periodMs;
            this.nextMs = nextMs;
        }
    }

    private final Time clockMs;
    private final Deque<Runnable> queue = new ArrayDeque<>();
    private final List<Periodic> periodic = new ArrayList<>();
    private boolean closed;
    private long tasksRun;

    ManualShardLoops(Time clockMs) {
        this.clockMs = clockMs;
    }

    @Override
    public void execute(int shard, Runnable task) {
        if (closed) {
            throw new RejectedExecutionException("shard loops closed");
        }
        queue.addLast(task);
    }

    @Override
    public void scheduleEvery(int shard, long periodMs, Runnable task) {
        periodic.add(new Periodic(task, periodMs, clockMs.milliseconds() + periodMs));
    }

    /** Queues the periodic tasks due by the clock (in registration order), then runs everything queued. */
    void runDue() {
        long now = clockMs.milliseconds();
        for (Periodic p : periodic) {
            if (!closed && now >= p.nextMs) {
                queue.addLast(p.task);
                p.nextMs = now + p.periodMs; // fixed delay, as the broker's loops schedule it
            }
        }
        runAll();
    }

    /** Runs the queued tasks, and those they queue, until none is left. */
    void runAll() {
        Runnable task;
        while ((task = queue.pollFirst()) != null) {
            tasksRun++;
            task.run();
        }
    }

    /** How many tasks ran, for a test that shows work really went through the loops. */
    long tasksRun() {
        return tasksRun;
    }

    @Override
    public void close() {
        closed = true;
        queue.clear();
        periodic.clear();
    }
}
