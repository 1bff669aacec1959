package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ReadLeaseTest {

    private final AtomicLong clock = new AtomicLong(10_000);

    @Test
    void theLeaseEndsBeforeTheEarliestFencingCountedFromTheHeartbeatsSendTime() {
        // Given: a 6 s session, whose earliest fencing after a heartbeat arrived is a new controller's activation grace
        long bound = QuorumController.fencingLowerBoundMs(6_000);
        assertThat(bound).isEqualTo(500);
        ReadLease lease = new ReadLease(clock::get, bound);
        assertThat(lease.holds()).isFalse();

        // When: a heartbeat sent at 10 000 is answered at 10 300
        clock.set(10_300);
        lease.renew(10_000);

        // Then: it holds from the send time for less than the bound, never up to it
        assertThat(lease.holds()).isTrue();
        clock.set(10_000 + lease.durationMs() - 1);
        assertThat(lease.holds()).isTrue();
        clock.set(10_000 + lease.durationMs());
        assertThat(lease.holds()).isFalse();
        assertThat(lease.durationMs()).isLessThan(bound);
        assertThat(lease.renewEveryMs()).isLessThan(lease.durationMs() / 2);
    }

    @Test
    void aLateAnswerToAnOlderHeartbeatDoesNotShortenItAndFencingRevokesIt() {
        ReadLease lease = new ReadLease(clock::get, 500);
        lease.renew(10_000);
        lease.renew(9_000);
        clock.set(10_000 + lease.durationMs() - 1);
        assertThat(lease.holds()).isTrue();
        lease.revoke();
        assertThat(lease.holds()).isFalse();
    }

    @Test
    void theBoundFollowsShortSessionsDown() {
        // broker.session.timeout.ms 1200: fast fencing after 400 ms, a new controller after 200 ms
        assertThat(QuorumController.fencingLowerBoundMs(1_200)).isEqualTo(200);
        assertThat(QuorumController.fencingLowerBoundMs(9_000)).isEqualTo(500);
    }
}
