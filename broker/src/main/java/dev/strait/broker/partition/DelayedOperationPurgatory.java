package dev.strait.broker.partition;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's purgatory, simplified: operations wait, keyed by partition, until an event on one of their partitions
 * makes them satisfiable ({@link #checkAndComplete}) or their timeout fires on a shared scheduler. No handler thread
 * ever blocks on an operation.
 */
public final class DelayedOperationPurgatory {

    private static final Logger LOGGER = LoggerFactory.getLogger(DelayedOperationPurgatory.class);

    private final ScheduledExecutorService scheduler;
    private final ConcurrentHashMap<TopicPartition, Set<DelayedOperation>> watchers = new ConcurrentHashMap<>();

    public DelayedOperationPurgatory(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Completes {@code operation} now if it is satisfied, else watches it on {@code keys} until it is satisfied or
     * {@code timeoutMs} passes.
     */
    public void tryCompleteElseWatch(DelayedOperation operation, Collection<TopicPartition> keys, long timeoutMs) {
        if (operation.maybeComplete()) {
            return;
        }
        List<TopicPartition> keyList = List.copyOf(keys);
        for (TopicPartition key : keyList) {
            watchers.compute(key, (k, set) -> {
                Set<DelayedOperation> operations = set == null ? ConcurrentHashMap.newKeySet() : set;
                operations.add(operation);
                return operations;
            });
        }
        // An append between the first check and the registration would otherwise be missed.
        if (operation.maybeComplete()) {
            unwatch(operation, keyList);
            return;
        }
        operation.setTimeout(scheduler.schedule(
                () -> {
                    try {
                        operation.forceComplete();
                    } catch (RuntimeException e) {
                        LOGGER.error("delayed operation failed on expiry", e);
                    } finally {
                        unwatch(operation, keyList);
                    }
                },
                timeoutMs,
                TimeUnit.MILLISECONDS));
    }

    /** Completes the operations watching {@code key} that are now satisfied. */
    public void checkAndComplete(TopicPartition key) {
        Set<DelayedOperation> operations = watchers.get(key);
        if (operations == null) {
            return;
        }
        for (DelayedOperation operation : operations) {
            try {
                if (operation.isCompleted() || operation.maybeComplete()) {
                    operations.remove(operation);
                }
            } catch (RuntimeException e) {
                LOGGER.error("delayed operation failed on completion", e);
                operations.remove(operation);
            }
        }
        watchers.computeIfPresent(key, (k, set) -> set.isEmpty() ? null : set);
    }

    private void unwatch(DelayedOperation operation, List<TopicPartition> keys) {
        for (TopicPartition key : keys) {
            watchers.computeIfPresent(key, (k, operations) -> {
                operations.remove(operation);
                return operations.isEmpty() ? null : operations;
            });
        }
    }

    /** Number of operations watched, per key summed (for tests and metrics). */
    public int watched() {
        return watchers.values().stream().mapToInt(Set::size).sum();
    }
}
