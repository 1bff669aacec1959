package dev.strait.broker.partition;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * An operation that waits for a condition (e.g. a fetch for min.bytes) or a timeout, whichever comes first, without
 * holding a thread. Completed exactly once, by whichever thread sees it first: an appender that made the
 * condition true, or the timer.
 */
public abstract class DelayedOperation {

    private final AtomicBoolean completed = new AtomicBoolean();
    /** The timeout's task once scheduled. */
    private volatile @Nullable ScheduledFuture<?> timeout;

    /** Whether the operation can complete now. Called from any thread; must be cheap and not block long. */
    protected abstract boolean isSatisfied();

    /** Completes the operation (builds and sends the response). Called exactly once. */
    protected abstract void onComplete();

    public final boolean isCompleted() {
        return completed.get();
    }

    /** Completes now, satisfied or not; false if it was already completed. */
    final boolean forceComplete() {
        if (!completed.compareAndSet(false, true)) {
            return false;
        }
        ScheduledFuture<?> scheduled = timeout;
        if (scheduled != null) {
            scheduled.cancel(false);
        }
        onComplete();
        return true;
    }

    final boolean maybeComplete() {
        return !completed.get() && isSatisfied() && forceComplete();
    }

    final void setTimeout(ScheduledFuture<?> scheduled) {
        this.timeout = scheduled;
        if (completed.get()) {
            scheduled.cancel(false);
        }
    }
}
