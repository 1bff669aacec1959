package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * D7: a stream held up past its membership deadline (max.poll.interval.ms, or a session timeout while the whole
 * process was paused) may have lost its partitions to another mirror process, which copies them again from the
 * last commit. It must hand no more of its poll's records to the producer: they would land between the new
 * owner's copies. The rest of the poll is read again after the next poll, by whoever owns the partition then.
 */
class MirrorStreamLostPartitionsTest {
    @Test
    void aStreamHeldUpPastItsMembershipDeadlineHandsNoMoreRecordsOver() {
        // Given: max.poll.interval.ms 10 s; a handler that holds the stream up for 30 s on record 3, once
        Properties consumer = new Properties();
        consumer.put("max.poll.interval.ms", "10000");
        consumer.put("session.timeout.ms", "6000");
        consumer.put("heartbeat.interval.ms", "1000");
        AtomicBoolean heldUp = new AtomicBoolean();
        StreamHarness[] harness = new StreamHarness[1];
        StreamHarness h = new StreamHarness(
                true,
                StreamHarness.unlimited(1),
                consumer,
                b -> b.messageHandler(r -> {
                    if (r.offset() == 3 && heldUp.compareAndSet(false, true)) {
                        harness[0].time.advance(30_000);
                    }
                    return List.of(new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value()));
                }));
        harness[0] = h;
        TopicPartition tp = new TopicPartition(StreamHarness.TOPIC, 0);
        h.consumer.schedulePollTask(() -> {
            h.consumer.updateBeginningOffsets(Map.of(tp, 0L));
            h.consumer.rebalance(List.of(tp));
            for (int o = 0; o < 10; o++) {
                h.consumer.addRecord(StreamHarness.record(0, o, 10, 0));
            }
        });
        // When: the next poll comes (the partition was not lost after all: the source serves 3..9 again)
        List<String> sentBeforeNextPoll = new ArrayList<>();
        long[] positionAtNextPoll = new long[1];
        h.consumer.schedulePollTask(() -> {
            h.producer.history().forEach(r -> sentBeforeNextPoll.add(new String(r.key(), StandardCharsets.UTF_8)));
            positionAtNextPoll[0] = h.consumer.position(tp);
            for (long o = positionAtNextPoll[0]; o < 10; o++) {
                h.consumer.addRecord(StreamHarness.record(0, o, 10, 0));
            }
        });
        h.consumer.schedulePollTask(h.stream::requestStop);

        h.stream.run();

        // Then: nothing after the hold-up went to the producer before the stream polled again
        assertThat(heldUp).isTrue();
        assertThat(sentBeforeNextPoll).containsExactly("k0", "k1", "k2");
        assertThat(positionAtNextPoll[0])
                .as("position moved back to the first record not handed over")
                .isEqualTo(3);
        // And: still the owner, it copied the rest once, in order, and committed all of it
        List<String> all = new ArrayList<>();
        h.producer.history().forEach(r -> all.add(new String(r.key(), StandardCharsets.UTF_8)));
        assertThat(all).containsExactly("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9");
        assertThat(h.consumer.lastCommitted.get(tp).offset()).isEqualTo(10);
    }
}
