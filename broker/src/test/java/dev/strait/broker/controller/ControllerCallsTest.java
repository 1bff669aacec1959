package dev.strait.broker.controller;

import static dev.strait.broker.controller.ControllerCalls.ATTEMPT_TIMEOUT_MS;
import static dev.strait.broker.controller.ControllerCalls.RETRY_BACKOFF_MS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerResponse.Error;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Both ends of a call to the controller, driven by hand: time is a field, the route a fake that records where
 * attempts go. The integration tests see the same behaviour only through real sockets and the system clock.
 */
class ControllerCallsTest {

    private static final int SELF = 1;
    private static final int OTHER = 2;
    private static final long FIRST_ID = 1_000;
    private static final long DEADLINE_MS = 10_000;

    private long now = 500;
    private int leader = -1;
    /** What {@link Route#handleHere} answers with while this node is the active controller; null while it is not. */
    private CompletableFuture<ControllerResponse> hereAnswer;

    private final List<Long> handledHere = new ArrayList<>();
    private final List<Sent> sent = new ArrayList<>();
    private final ControllerCalls calls = new ControllerCalls(SELF, FIRST_ID, () -> now, new Route());

    private record Sent(int destination, Request request) {}

    private final class Route implements ControllerCalls.Route {
        @Override
        public int leaderId() {
            return leader;
        }

        @Override
        public CompletableFuture<ControllerResponse> handleHere(long correlationId, ControllerRequest request) {
            if (hereAnswer == null) {
                return null;
            }
            handledHere.add(correlationId);
            return hereAnswer;
        }

        @Override
        public void send(int destination, Request request) {
            sent.add(new Sent(destination, request));
        }
    }

    private static ControllerRequest createTopic(String name) {
        return new CreateTopic(name, 1, 1, Map.of());
    }

    private CompletableFuture<ControllerResponse> call(ControllerRequest request, long deadlineMs) {
        CompletableFuture<ControllerResponse> future = new CompletableFuture<>();
        calls.add(request, future, deadlineMs);
        return future;
    }

    private void advanceTo(long ms) {
        now = ms;
        calls.dispatch();
    }

    // ---------------------------------------------------------------- outbound

    @Test
    void withoutALeaderACallWaitsAndFailsAtItsDeadlineNotBefore() {
        // Given
        CompletableFuture<ControllerResponse> future = call(createTopic("t"), DEADLINE_MS);

        // When: no leader is known until the deadline
        advanceTo(DEADLINE_MS - 1);

        // Then
        assertThat(sent).isEmpty();
        assertThat(future).isNotDone();
        assertThat(calls.nextDeadlineMs()).isLessThanOrEqualTo(DEADLINE_MS);

        // When
        advanceTo(DEADLINE_MS);

        // Then
        assertThat(future)
                .failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(TimeoutException.class)
                .withMessageContaining("CreateTopic");
        assertThat(calls.nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aCallWithoutLeaderIsDueAgainAfterTwiceTheBackoff() {
        // Given
        call(createTopic("t"), DEADLINE_MS);

        // Then
        assertThat(calls.nextDeadlineMs()).isEqualTo(now + 2 * RETRY_BACKOFF_MS);
    }

    @Test
    void anUnansweredAttemptIsRepeatedWithTheSameCorrelationIdAfterTheAttemptTimeout() {
        // Given
        leader = OTHER;
        CompletableFuture<ControllerResponse> future = call(createTopic("t"), DEADLINE_MS);
        assertThat(sent).containsExactly(new Sent(OTHER, new Request(SELF, FIRST_ID, createTopic("t"))));
        long firstAttempt = now;

        // When: silence, just short of the attempt timeout
        advanceTo(firstAttempt + ATTEMPT_TIMEOUT_MS - 1);

        // Then
        assertThat(sent).hasSize(1);

        // When
        advanceTo(firstAttempt + ATTEMPT_TIMEOUT_MS);

        // Then: the same request again, so that the controller can join it to the first
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1)).isEqualTo(sent.get(0));

        // When: an answer to either attempt
        calls.onResponse(FIRST_ID, ControllerResponse.ok(0));

        // Then
        assertThat(future).isCompletedWithValue(ControllerResponse.ok(0));
        assertThat(calls.nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void notControllerMakesTheCallDueAgainAfterTheBackoff() {
        // Given
        leader = OTHER;
        CompletableFuture<ControllerResponse> future = call(createTopic("t"), DEADLINE_MS);

        // When
        calls.onResponse(FIRST_ID, ControllerResponse.notController(-1));

        // Then
        assertThat(future).isNotDone();
        assertThat(calls.nextDeadlineMs()).isEqualTo(now + RETRY_BACKOFF_MS);
        advanceTo(now + RETRY_BACKOFF_MS - 1);
        assertThat(sent).hasSize(1);
        advanceTo(now + 1);
        assertThat(sent).hasSize(2);
        assertThat(sent.get(1).request().correlationId()).isEqualTo(FIRST_ID);
    }

    @Test
    void aNewlyKnownLeaderGetsTheCallAtOnce() {
        // Given
        leader = OTHER;
        call(createTopic("t"), DEADLINE_MS);

        // When: another leader, long before the attempt timeout
        leader = 3;
        advanceTo(now + 1);

        // Then
        assertThat(sent).extracting(Sent::destination).containsExactly(OTHER, 3);
        assertThat(sent).extracting(s -> s.request().correlationId()).containsOnly(FIRST_ID);
    }

    @Test
    void callsTakeConsecutiveCorrelationIds() {
        // Given
        leader = OTHER;

        // When
        call(createTopic("a"), DEADLINE_MS);
        call(createTopic("b"), DEADLINE_MS);

        // Then
        assertThat(sent).extracting(s -> s.request().correlationId()).containsExactly(FIRST_ID, FIRST_ID + 1);
    }

    @Test
    void anAnswerAfterTheDeadlineIsIgnored() {
        // Given
        leader = OTHER;
        CompletableFuture<ControllerResponse> future = call(createTopic("t"), now + 100);
        advanceTo(now + 100);

        // When
        calls.onResponse(FIRST_ID, ControllerResponse.ok(0));

        // Then
        assertThat(future).isCompletedExceptionally();
    }

    @Test
    void theActiveControllerHandlesItsOwnCallsInPlace() {
        // Given
        hereAnswer = new CompletableFuture<>();
        CompletableFuture<ControllerResponse> future = call(createTopic("t"), DEADLINE_MS);

        // Then
        assertThat(handledHere).containsExactly(FIRST_ID);
        assertThat(sent).isEmpty();
        assertThat(future).isNotDone();

        // When: the controller's decision commits
        hereAnswer.complete(ControllerResponse.ok(0));

        // Then
        assertThat(future).isCompletedWithValue(ControllerResponse.ok(0));
    }

    @Test
    void aFailedInPlaceAttemptAnswersInvalidRequest() {
        // Given
        hereAnswer = CompletableFuture.failedFuture(new IllegalStateException("boom"));

        // When
        CompletableFuture<ControllerResponse> future = call(createTopic("t"), DEADLINE_MS);

        // Then
        assertThat(future.join().error()).isEqualTo(Error.INVALID_REQUEST);
        assertThat(future.join().message()).contains("boom");
    }

    @Test
    void theLoopStoppingFailsEveryPendingCall() {
        // Given
        CompletableFuture<ControllerResponse> first = call(createTopic("a"), DEADLINE_MS);
        CompletableFuture<ControllerResponse> second = call(createTopic("b"), DEADLINE_MS);

        // When
        calls.failAll(() -> new IllegalStateException("stopped"));

        // Then
        assertThat(first).isCompletedExceptionally();
        assertThat(second).isCompletedExceptionally();
        assertThat(calls.nextDeadlineMs()).isEqualTo(Long.MAX_VALUE);
    }

    // ---------------------------------------------------------------- inbound

    @Test
    void aRepeatedAttemptJoinsTheFirstInsteadOfHandlingItAgain() {
        // Given
        AtomicInteger handled = new AtomicInteger();
        CompletableFuture<ControllerResponse> first = new CompletableFuture<>();
        calls.handleOnce(OTHER, 7, () -> {
            handled.incrementAndGet();
            return first;
        });

        // When: the same caller repeats while the first attempt is in progress, and after it was answered
        CompletableFuture<ControllerResponse> whileInProgress = calls.handleOnce(OTHER, 7, () -> counted(handled));
        first.complete(ControllerResponse.ok(0));
        CompletableFuture<ControllerResponse> afterAnswer = calls.handleOnce(OTHER, 7, () -> counted(handled));

        // Then
        assertThat(handled).hasValue(1);
        assertThat(whileInProgress).isSameAs(first);
        assertThat(afterAnswer).isSameAs(first);
    }

    @Test
    void anotherCallerOrCorrelationIdIsAnotherRequest() {
        // Given
        AtomicInteger handled = new AtomicInteger();
        calls.handleOnce(OTHER, 7, () -> counted(handled));

        // When
        calls.handleOnce(OTHER, 8, () -> counted(handled));
        calls.handleOnce(3, 7, () -> counted(handled));

        // Then
        assertThat(handled).hasValue(3);
    }

    @Test
    void anAttemptThatFailedOrFoundNoControllerIsHandledAgain() {
        // Given
        calls.handleOnce(OTHER, 7, () -> CompletableFuture.failedFuture(new IllegalStateException("gone")));
        calls.handleOnce(OTHER, 8, () -> CompletableFuture.completedFuture(ControllerResponse.notController(-1)));
        AtomicInteger handled = new AtomicInteger();

        // When
        calls.handleOnce(OTHER, 7, () -> counted(handled));
        calls.handleOnce(OTHER, 8, () -> counted(handled));

        // Then
        assertThat(handled).hasValue(2);
    }

    @Test
    void aNewControllerTermForgetsTheRecentRequests() {
        // Given
        calls.handleOnce(OTHER, 7, () -> CompletableFuture.completedFuture(ControllerResponse.ok(0)));
        AtomicInteger handled = new AtomicInteger();

        // When
        calls.forgetRecentRequests();
        calls.handleOnce(OTHER, 7, () -> counted(handled));

        // Then
        assertThat(handled).hasValue(1);
    }

    @Test
    void onlyTheMostRecentRequestsAreKept() {
        // Given: the first request, then 1024 others
        calls.handleOnce(OTHER, 0, () -> CompletableFuture.completedFuture(ControllerResponse.ok(0)));
        for (long id = 1; id <= 1024; id++) {
            calls.handleOnce(OTHER, id, () -> CompletableFuture.completedFuture(ControllerResponse.ok(0)));
        }
        AtomicInteger handled = new AtomicInteger();

        // When
        calls.handleOnce(OTHER, 1024, () -> counted(handled));
        calls.handleOnce(OTHER, 0, () -> counted(handled));

        // Then: the newest still joins, the oldest was forgotten
        assertThat(handled).hasValue(1);
    }

    private static CompletableFuture<ControllerResponse> counted(AtomicInteger handled) {
        handled.incrementAndGet();
        return new CompletableFuture<>();
    }
}
