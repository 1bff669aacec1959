package dev.strait.broker.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class DelayedOperationPurgatoryTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final DelayedOperationPurgatory purgatory = new DelayedOperationPurgatory(scheduler);

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    /** Satisfied once {@code ready} is set; counts completions. */
    private static final class TestOperation extends DelayedOperation {
        final AtomicBoolean ready = new AtomicBoolean();
        final AtomicInteger completions = new AtomicInteger();
        final CountDownLatch done = new CountDownLatch(1);

        @Override
        protected boolean isSatisfied() {
            return ready.get();
        }

        @Override
        protected void onComplete() {
            completions.incrementAndGet();
            done.countDown();
        }
    }

    @Test
    void aSatisfiedOperationCompletesAtOnceWithoutBeingWatched() {
        TestOperation operation = new TestOperation();
        operation.ready.set(true);
        purgatory.tryCompleteElseWatch(operation, List.of(TP), 60_000);
        assertThat(operation.completions).hasValue(1);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void anEventCompletesAWaitingOperationExactlyOnce() throws Exception {
        // Given
        TestOperation operation = new TestOperation();
        purgatory.tryCompleteElseWatch(operation, List.of(TP, new TopicPartition("t", 1)), 60_000);
        purgatory.checkAndComplete(TP);
        assertThat(operation.completions).hasValue(0);

        // When
        operation.ready.set(true);
        purgatory.checkAndComplete(TP);
        purgatory.checkAndComplete(new TopicPartition("t", 1));

        // Then
        assertThat(operation.completions).hasValue(1);
        assertThat(purgatory.watched()).isZero();
    }

    @Test
    void theTimeoutCompletesAnUnsatisfiedOperation() throws Exception {
        TestOperation operation = new TestOperation();
        purgatory.tryCompleteElseWatch(operation, List.of(TP), 50);
        assertThat(operation.done.await(10, TimeUnit.SECONDS)).isTrue();
        operation.ready.set(true);
        purgatory.checkAndComplete(TP);
        assertThat(operation.completions).hasValue(1);
        // the timer unwatches right after completing; wait for it, bounded
        for (int i = 0; i < 200 && purgatory.watched() > 0; i++) {
            Thread.sleep(10);
        }
        assertThat(purgatory.watched()).isZero();
    }
}
