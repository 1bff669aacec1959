package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class FetchSessionsTest {

    @Test
    void aFullCacheEvictsOnlyASessionIdleLongEnoughElseTheFetchGoesWithoutOne() {
        // Given: one slot, taken at time 0
        FetchSessions sessions = new FetchSessions(1, 7L);
        int first = sessions.open(initial(), false, 0).sessionId();
        assertThat(first).isNotZero();

        // When: another client asks before the first session is idle long enough
        FetchSessions.Opened refused = sessions.open(initial(), false, FetchSessions.EVICTABLE_IDLE_MS - 1);

        // Then: no session for it (full fetches), and the first one still works
        assertThat(refused.error()).isEqualTo(Errors.NONE);
        assertThat(refused.sessionId()).isZero();
        assertThat(sessions.open(next(first, 1), false, 10).error()).isEqualTo(Errors.NONE);

        // When: asked again once the first has been idle long enough
        int second = sessions.open(initial(), false, 10 + FetchSessions.EVICTABLE_IDLE_MS)
                .sessionId();

        // Then: the first was evicted for it
        assertThat(second).isNotZero().isNotEqualTo(first);
        assertThat(sessions.open(next(first, 2), false, 20 + FetchSessions.EVICTABLE_IDLE_MS)
                        .error())
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }

    @Test
    void noSlotsMeansNoSessionsAndAFinalEpochClosesOne() {
        // Given
        FetchSessions none = new FetchSessions(0, 7L);
        FetchSessions some = new FetchSessions(10, 7L);

        // Then
        assertThat(none.open(initial(), false, 0).sessionId()).isZero();
        int id = some.open(initial(), false, 0).sessionId();
        assertThat(some.size()).isEqualTo(1);
        assertThat(some.open(new FetchRequestData().setSessionId(id).setSessionEpoch(-1), false, 1)
                        .sessionId())
                .isZero();
        assertThat(some.size()).isZero();
    }

    private static FetchRequestData initial() {
        return new FetchRequestData()
                .setSessionId(0)
                .setSessionEpoch(0)
                .setTopics(List.of(new FetchTopic()
                        .setTopic("t")
                        .setPartitions(
                                List.of(new FetchPartition().setPartition(0).setFetchOffset(5)))));
    }

    private static FetchRequestData next(int session, int epoch) {
        return new FetchRequestData().setSessionId(session).setSessionEpoch(epoch);
    }
}
