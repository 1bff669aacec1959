package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.ManualScheduler;
import dev.strait.time.ManualTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** On a manual clock and scheduler: timeouts fire when the test moves time, on the test's thread. */
class DelayedOperationPurgatoryTest {

    private static final TopicPartition TP = new TopicPartition("t", 0);
    private final ManualScheduler scheduler = new ManualScheduler(new ManualTime());
    private final DelayedOperationPurgatory purgatory = new DelayedOperationPurgatory(scheduler);

    /** Satisfied once {@code ready} is set; counts completions. */
    private static final class TestOperation extends DelayedOperation {
        final AtomicBoolean ready = new AtomicBoolean();
        final AtomicInteger completions = new AtomicInteger();

        @Override
        protected boolean isSatisfied() {
            return ready.get();
        }

        @Override
        protected void onComplete() {
            completions.incrementAndGet();
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
    void theTimeoutCompletesAnUnsatisfiedOperationExactlyOnceAndUnwatchesIt() {
        // Given
        TestOperation operation = new TestOperation();
        purgatory.tryCompleteElseWatch(operation, List.of(TP), 50);

        // When: 49 ms pass, then the 50th
        scheduler.advance(49);
        assertThat(operation.completions).hasValue(0);
        scheduler.advance(1);

        // Then: completed by its timeout, no longer watched; a late event does not complete it again
        assertThat(operation.completions).hasValue(1);
        assertThat(purgatory.watched()).isZero();
        operation.ready.set(true);
        purgatory.checkAndComplete(TP);
        assertThat(operation.completions).hasValue(1);
    }

    @Test
    void anOperationCompletedByAnEventCancelsItsTimeout() {
        TestOperation operation = new TestOperation();
        purgatory.tryCompleteElseWatch(operation, List.of(TP), 50);
        operation.ready.set(true);
        purgatory.checkAndComplete(TP);
        assertThat(scheduler.pending()).isZero();
        scheduler.advance(1_000);
        assertThat(operation.completions).hasValue(1);
    }
}
