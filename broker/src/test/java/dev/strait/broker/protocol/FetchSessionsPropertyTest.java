package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.protocol.Errors;

/**
 * A fetch session against a model: over any history of incremental fetches that add, move or forget partitions of
 * two topics, the partitions the session reads (and their fetch offsets) are exactly the model's, and only the
 * next epoch is accepted.
 */
class FetchSessionsPropertyTest {

    /** One incremental fetch: partitions set to offsets, partitions forgotten (topic "a" or "b", partition 0-4). */
    record Step(Map<String, Long> set, List<String> forget) {}

    @Property(tries = 300)
    void theSessionHoldsExactlyWhatTheFetchesAddedAndDidNotForget(@ForAll("histories") List<Step> history) {
        // Given: a session opened with a0 at offset 0
        FetchSessions sessions = new FetchSessions(10, 1L);
        Map<String, Long> model = new LinkedHashMap<>();
        model.put("a0", 0L);
        FetchSessions.Opened opened = sessions.open(request(0, 0, Map.of("a0", 0L), List.of()), false, 0);
        int id = opened.sessionId();
        int epoch = 1;
        for (Step step : history) {
            // When
            opened = sessions.open(request(id, epoch, step.set(), step.forget()), false, epoch);
            model.putAll(step.set());
            step.forget().forEach(model::remove);

            // Then
            assertThat(opened.error()).isEqualTo(Errors.NONE);
            assertThat(read(opened.topics())).isEqualTo(model);
            assertThat(sessions.open(request(id, epoch, Map.of(), List.of()), false, epoch)
                            .error())
                    .as("a replayed epoch")
                    .isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
            epoch++;
        }
    }

    @Provide
    Arbitrary<List<Step>> histories() {
        Arbitrary<String> partition = Combinators.combine(
                        Arbitraries.of("a", "b"), Arbitraries.integers().between(0, 4))
                .as((t, p) -> t + p);
        Arbitrary<Map<String, Long>> sets = Arbitraries.maps(
                        partition, Arbitraries.longs().between(0, 1000))
                .ofMaxSize(4);
        Arbitrary<List<String>> forgets = partition.list().ofMaxSize(3);
        return Combinators.combine(sets, forgets).as(Step::new).list().ofMaxSize(20);
    }

    private static FetchRequestData request(int id, int epoch, Map<String, Long> set, List<String> forget) {
        Map<String, FetchTopic> topics = new LinkedHashMap<>();
        set.forEach((key, offset) -> topics.computeIfAbsent(
                        key.substring(0, 1), t -> new FetchTopic().setTopic(t).setPartitions(new ArrayList<>()))
                .partitions()
                .add(new FetchPartition()
                        .setPartition(Integer.parseInt(key.substring(1)))
                        .setFetchOffset(offset)));
        Map<String, ForgottenTopic> forgotten = new LinkedHashMap<>();
        forget.forEach(key -> forgotten
                .computeIfAbsent(
                        key.substring(0, 1),
                        t -> new ForgottenTopic().setTopic(t).setPartitions(new ArrayList<>()))
                .partitions()
                .add(Integer.parseInt(key.substring(1))));
        return new FetchRequestData()
                .setSessionId(id)
                .setSessionEpoch(epoch)
                .setTopics(new ArrayList<>(topics.values()))
                .setForgottenTopicsData(new ArrayList<>(forgotten.values()));
    }

    private static Map<String, Long> read(List<FetchTopic> topics) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (FetchTopic topic : topics) {
            for (FetchPartition p : topic.partitions()) {
                out.put(topic.topic() + p.partition(), p.fetchOffset());
            }
        }
        return out;
    }
}
