package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class SendTrackerTest {
    private static final TopicPartition A = new TopicPartition("a", 0);
    private static final TopicPartition TARGET = new TopicPartition("dr.a", 3);

    @Test
    void owedIsTheLowestUnacknowledgedOrFailedOffset() {
        SendTracker t = new SendTracker(AcknowledgementListener.NONE);
        SendTracker.Send s10 = t.begin(A, 10);
        SendTracker.Send s11 = t.begin(A, 11);
        SendTracker.Send s11b = t.begin(A, 11);
        SendTracker.Send s12 = t.begin(A, 12);
        assertThat(t.owedFrom(A)).isEqualTo(10);

        s11.acknowledged(TARGET, 0);
        s10.acknowledged(TARGET, 1);
        assertThat(t.owedFrom(A))
                .as("one of the two copies of 11 is still in flight")
                .isEqualTo(11);
        s11b.failed(new TimeoutException("x"), false);
        s12.acknowledged(TARGET, 2);
        assertThat(t.owedFrom(A)).as("a failed copy stays owed").isEqualTo(11);
        assertThat(t.failed()).isTrue();
        assertThat(t.outstanding()).isZero();
        assertThat(t.firstFailure().offset()).isEqualTo(11);
    }

    @Test
    void aSkippedFailureIsNotOwed() {
        SendTracker t = new SendTracker(AcknowledgementListener.NONE);
        t.begin(A, 5).failed(new RecordTooLargeException("x"), true);
        assertThat(t.owedFrom(A)).isEqualTo(Long.MAX_VALUE);
        assertThat(t.failed()).isFalse();
    }

    @Test
    void forgettingAPartitionDropsItsFailuresAndIgnoresLateCallbacks() {
        SendTracker t = new SendTracker(AcknowledgementListener.NONE);
        SendTracker.Send late = t.begin(A, 7);
        t.begin(A, 3).failed(new TimeoutException("x"), false);
        t.forget(List.of(A));
        assertThat(t.firstFailure()).isNull();
        assertThat(t.owed()).isEmpty();

        // The partition comes back to this stream; the old send completes late and must not touch the new state.
        SendTracker.Send fresh = t.begin(A, 20);
        late.failed(new TimeoutException("late"), false);
        assertThat(t.owedFrom(A)).isEqualTo(20);
        fresh.acknowledged(TARGET, 9);
        assertThat(t.owedFrom(A)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theListenerHearsWhereEachCopyLandedAndCannotBreakASend() {
        List<String> heard = new ArrayList<>();
        SendTracker t = new SendTracker((source, sourceOffset, target, targetOffset) -> {
            heard.add(source + "@" + sourceOffset + "->" + target + "@" + targetOffset);
            if (sourceOffset == 2) {
                throw new IllegalStateException("listener bug");
            }
        });
        t.begin(A, 1).acknowledged(TARGET, 100);
        t.begin(A, 2).acknowledged(TARGET, 101);
        assertThat(heard).containsExactly("a-0@1->dr.a-3@100", "a-0@2->dr.a-3@101");
        assertThat(t.owedFrom(A)).isEqualTo(Long.MAX_VALUE);
        assertThat(t.outstanding()).isZero();
    }

    @Test
    void copiesInFlightBehindAFailureAreNamedSoTheyAreNotFlushedOutOfOrder() {
        SendTracker t = new SendTracker(AcknowledgementListener.NONE);
        SendTracker.Send s1 = t.begin(A, 1);
        t.begin(A, 2);
        assertThat(t.pendingBeyondAFailure()).isFalse();
        t.failedBeforeSend(A, 3, new RecordTooLargeException("x"), false);
        assertThat(t.pendingBeyondAFailure())
                .as("only records before the failure in flight: safe to flush")
                .isFalse();
        t.begin(A, 4);
        assertThat(t.pendingBeyondAFailure()).isTrue();
        s1.failed(new TimeoutException("expired"), false);
        assertThat(t.owedFrom(A)).isEqualTo(1);
    }
}
