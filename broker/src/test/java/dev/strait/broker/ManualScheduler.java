package dev.strait.broker;

import dev.strait.time.ManualTime;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A {@link ScheduledExecutorService} on a {@link ManualTime}: nothing runs until the test calls {@link #advance},
 * which moves the clock and runs every task then due, in due order, on the test's own thread. A test of timeouts
 * runs in no real time and the same way every run. One-shot tasks only.
 */
public final class ManualScheduler extends AbstractExecutorService implements ScheduledExecutorService {
    private final ManualTime time;
    private final PriorityQueue<Task> tasks = new PriorityQueue<>();
    private long sequence;
    private boolean shutdown;

    public ManualScheduler(ManualTime time) {
        this.time = time;
    }

    /** Moves the clock on by {@code ms}, running each task that falls due on the way at its due time. */
    public void advance(long ms) {
        long until = time.hiResClockMs() + ms;
        while (true) {
            Task next;
            synchronized (this) {
                next = tasks.peek();
                if (next == null || next.dueMs > until) {
                    break;
                }
                tasks.poll();
            }
            time.advance(Math.max(0, next.dueMs - time.hiResClockMs()));
            next.run();
        }
        time.advance(Math.max(0, until - time.hiResClockMs()));
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public synchronized int pending() {
        return (int) tasks.stream().filter(t -> !t.isCancelled()).count();
    }

    @Override
    public synchronized ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        if (shutdown) {
            throw new java.util.concurrent.RejectedExecutionException("shut down");
        }
        Task task = new Task(command, time.hiResClockMs() + unit.toMillis(delay), sequence++);
        tasks.add(task);
        return task;
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("one-shot Runnables only");
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("one-shot Runnables only");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("one-shot Runnables only");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.MILLISECONDS);
    }

    @Override
    public synchronized void shutdown() {
        shutdown = true;
    }

    @Override
    public synchronized List<Runnable> shutdownNow() {
        shutdown = true;
        List<Runnable> left = new ArrayList<>(tasks);
        tasks.clear();
        return left;
    }

    @Override
    public synchronized boolean isShutdown() {
        return shutdown;
    }

    @Override
    public synchronized boolean isTerminated() {
        return shutdown && tasks.isEmpty();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }

    private final class Task implements ScheduledFuture<Object>, Runnable {
        private final Runnable command;
        private final long dueMs;
        private final long order;
        private volatile boolean cancelled;
        private volatile boolean done;

        Task(Runnable command, long dueMs, long order) {
            this.command = command;
            this.dueMs = dueMs;
            this.order = order;
        }

        @Override
        public void run() {
            if (!cancelled) {
                done = true;
                command.run();
            }
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(dueMs - time.hiResClockMs(), TimeUnit.MILLISECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Task o = (Task) other;
            return dueMs != o.dueMs ? Long.compare(dueMs, o.dueMs) : Long.compare(order, o.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done) {
                return false;
            }
            cancelled = true;
            synchronized (ManualScheduler.this) {
                tasks.remove(this);
            }
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("a test asks the operation, not its timer");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            return get();
        }
    }
}
