package dev.strait.broker.link;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.link.MirrorStatus.State;
import dev.strait.broker.log.MirrorOffsetMismatchException;
import dev.strait.broker.partition.PartitionRoleException;
import dev.strait.time.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/**
 * The mirror fetcher's decisions against a scripted source cluster and a recording target: no network, no threads,
 * rounds driven one at a time.
 */
class MirrorFetcherTest {
    private static final String SOURCE = "source-1:9092";
    private static final Uuid SOURCE_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);

    private final FakeSource source = new FakeSource();
    private final FakeTargets targets = new FakeTargets();
    private long nowMs = 1_000_000L;
    private final Time time = () -> nowMs;
    private final MirrorFetcher fetcher = new MirrorFetcher(
            1, targets, new SourceLinks(Map.of(), (name, settings) -> source), time, MirrorFetcher.Config.defaults());

    @Test
    void pinsTheSourceTopicIdAndAppendsWhatItFetchedAtTheFetchOffset() {
        // Given
        targets.lead(ORDERS_0, 3, 0, "");
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 10, 0, batchBytes(5));

        // When
        fetcher.runOnce();

        // Then
        assertThat(targets.pinned).containsEntry("orders", SOURCE_ID);
        assertThat(source.fetchOffsets).containsExactly(0L);
        assertThat(targets.appends).containsExactly("orders-0@0 epoch 3 (5 bytes)");
        assertThat(fetcher.status()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(State.COPYING);
            assertThat(s.sourceHighWatermark()).isEqualTo(10);
        });
    }

    @Test
    void recordsTheSourceEpochsOfWhatItCopiesBeforeAppendingAndStartsOverForAnotherSourceTopic() {
        // Given: a copy led here whose lineage names another source topic (it copied that one before a failback)
        targets.lead(ORDERS_0, 3, 40, SOURCE_ID.toString());
        targets.lineages.put(ORDERS_0, new MirrorLineage("BBBBBBBBBBBBBBBBBBBBBQ", 0, List.of()));
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 50, 0, batchHeaders(new long[] {40, 44, 47}, 5, 5, 7));

        // When
        fetcher.runOnce();

        // Then: a new lineage from the log end, with the source epochs as the batches carried them
        assertThat(targets.lineages.get(ORDERS_0))
                .isEqualTo(new MirrorLineage(
                        SOURCE_ID.toString(),
                        40,
                        List.of(new MirrorLineage.EpochStart(5, 40), new MirrorLineage.EpochStart(7, 47))));
        assertThat(targets.appends).hasSize(1);
    }

    @Test
    void aLineageEntryLostToAnotherWriteOfTheTopicConfigsIsWrittenAgain() {
        // Given: a lineage recorded at the first copy, then lost (another leader wrote the topic's configs at once)
        targets.lead(ORDERS_0, 3, 0, SOURCE_ID.toString());
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 50, 0, batchHeaders(new long[] {0}, 4));
        fetcher.runOnce();
        MirrorLineage first = targets.lineages.remove(ORDERS_0);
        targets.lead(ORDERS_0, 3, 1, SOURCE_ID.toString());
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 50, 0, batchHeaders(new long[] {1}, 4));

        // When: the next copy in the same source epoch, and one after the check interval
        fetcher.runOnce();
        boolean writtenAtOnce = targets.lineages.containsKey(ORDERS_0);
        nowMs += MirrorFetcher.Config.defaults().metadataMaxAgeMs();
        targets.lead(ORDERS_0, 3, 2, SOURCE_ID.toString());
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 50, 0, batchHeaders(new long[] {2}, 4));
        fetcher.runOnce();

        // Then: not read back every round, but written again once checked
        assertThat(writtenAtOnce).isFalse();
        assertThat(targets.lineages.get(ORDERS_0)).isEqualTo(first);
    }

    @Test
    void aSourceTopicRecreatedUnderAnotherIdIsNeverCopiedOnTop() {
        // Given: the copy began on another topic id
        targets.lead(ORDERS_0, 3, 42, "BBBBBBBBBBBBBBBBBBBBBQ");
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 10, 0, batchBytes(5));

        // When
        fetcher.runOnce();

        // Then
        assertThat(source.fetchOffsets).isEmpty();
        assertThat(targets.appends).isEmpty();
        assertThat(fetcher.status()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(State.SOURCE_TOPIC_RECREATED);
            assertThat(s.detail()).contains("deleted and re-created");
        });
    }

    @Test
    void aNewMirrorPartitionStartsAtTheSourcesLogStart() {
        // Given: the source deleted offsets below 500
        targets.lead(ORDERS_0, 3, 0, SOURCE_ID.toString());
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.OFFSET_OUT_OF_RANGE, -1, -1, new byte[0]);
        source.logStart(ORDERS_0, 500);

        // When
        fetcher.runOnce();

        // Then
        assertThat(targets.restarts).containsExactly("orders-0 at 500 epoch 3");
    }

    @Test
    void aSourceWhoseLogEndsBelowTheCopyStopsItUntilLeadershipHereMoves() {
        // Given: the copy holds 0-99, the source now starts at 0 and answers out of range (it ends below 100)
        targets.lead(ORDERS_0, 3, 100, SOURCE_ID.toString());
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.OFFSET_OUT_OF_RANGE, -1, -1, new byte[0]);
        source.logStart(ORDERS_0, 0);

        // When
        fetcher.runOnce();
        fetcher.runOnce();

        // Then: nothing deleted or restarted, one fetch only, and the status says why
        assertThat(targets.restarts).isEmpty();
        assertThat(source.fetchOffsets).containsExactly(100L);
        assertThat(fetcher.status()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(State.SOURCE_DIVERGED);
            assertThat(s.detail()).contains("nothing deleted");
        });

        // When: a new leader epoch here (an operator's leader election) tries again
        targets.lead(ORDERS_0, 4, 100, SOURCE_ID.toString());
        fetcher.runOnce();

        // Then
        assertThat(source.fetchOffsets).containsExactly(100L, 100L);
    }

    @Test
    void anUnreachableSourceIsReportedAndBacksOff() {
        // Given
        targets.lead(ORDERS_0, 3, 0, SOURCE_ID.toString());
        source.down = true;

        // When
        long pause = fetcher.runOnce();

        // Then
        assertThat(pause).isEqualTo(MirrorFetcher.Config.defaults().backoffMs());
        assertThat(fetcher.status())
                .singleElement()
                .satisfies(s -> assertThat(s.state()).isEqualTo(State.SOURCE_UNREACHABLE));
    }

    @Test
    void leadershipMovingMidRoundAndALostPlaceAreLeftToTheNextRound() {
        // Given
        targets.lead(ORDERS_0, 3, 0, SOURCE_ID.toString());
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 10, 0, batchBytes(5));
        targets.failAppendWith = new PartitionRoleException(PartitionRoleException.Reason.NOT_LEADER, "moved");

        // When / Then: no exception escapes the round
        fetcher.runOnce();
        targets.failAppendWith = new MirrorOffsetMismatchException("replayed", 5);
        fetcher.runOnce();
        assertThat(source.fetchOffsets).containsExactly(0L, 0L);
    }

    @Test
    void aPartitionTheSourceLacksIsReported() {
        // Given: the mirror has 2 partitions, the source 1
        TopicPartition orders1 = new TopicPartition("orders", 1);
        targets.lead(orders1, 3, 0, SOURCE_ID.toString());
        source.topic("orders", SOURCE_ID, 1);

        // When
        fetcher.runOnce();

        // Then
        assertThat(fetcher.status())
                .singleElement()
                .satisfies(s -> assertThat(s.state()).isEqualTo(State.SOURCE_PARTITION_MISSING));
    }

    @Test
    void aPromotedPartitionWithAnOpenTransactionHasItAbortedOnceAndIsNotCopied() {
        // Given: orders-0 was promoted while a copied transaction was open
        targets.promotedOpen.add(new MirrorTargets.LedMirror(
                ORDERS_0,
                3,
                10,
                new MirrorSpec(SOURCE, "", "orders", SOURCE_ID.toString(), MirrorSpec.State.PROMOTED)));

        // When
        fetcher.runOnce();
        fetcher.runOnce();

        // Then
        assertThat(targets.aborts).containsExactly("orders-0 epoch 3");
        assertThat(source.fetchOffsets).isEmpty();
    }

    @Test
    void theLagInSecondsCountsFromWhenTheCopyFellBehindUntilItCatchesUp() {
        // Given: a fetch that leaves the copy behind (the target's log end stays 0 here, the source is at 10)
        targets.lead(ORDERS_0, 3, 0, SOURCE_ID.toString());
        source.topic("orders", SOURCE_ID, 1);
        source.answer(ORDERS_0, SourceClient.SourceError.NONE, 10, 0, new byte[0]);
        fetcher.runOnce();

        // When: 7 s later it is still behind
        nowMs += 7_000;
        fetcher.runOnce();

        // Then
        assertThat(fetcher.status().get(0).lagSeconds(nowMs)).isEqualTo(7.0);

        // When: it caught up
        targets.lead(ORDERS_0, 3, 10, SOURCE_ID.toString());
        fetcher.runOnce();

        // Then
        assertThat(fetcher.status().get(0).lagSeconds(nowMs)).isZero();
        assertThat(fetcher.status().get(0).lag()).isZero();
    }

    @Test
    void aTopicNamingALinkThisNodeLacksIsReportedWithTheSettingToAdd() {
        // Given
        targets.led.put(
                ORDERS_0,
                new MirrorTargets.LedMirror(
                        ORDERS_0,
                        3,
                        0,
                        new MirrorSpec("", "dc1", "orders", SOURCE_ID.toString(), MirrorSpec.State.MIRRORING)));

        // When
        fetcher.runOnce();

        // Then
        assertThat(fetcher.status()).singleElement().satisfies(s -> {
            assertThat(s.state()).isEqualTo(State.LINK_UNDEFINED);
            assertThat(s.detail()).contains("strait.mirror.link.dc1.bootstrap.servers");
        });
        assertThat(source.fetchOffsets).isEmpty();
    }

    private static byte[] batchBytes(int size) {
        return new byte[size];
    }

    /** A source cluster of one broker (id 0) that answers from a script. */
    private static final class FakeSource implements SourceClient.Factory {
        final Map<String, SourceClient.TopicInfo> topics = new HashMap<>();
        final Map<TopicPartition, SourceClient.Fetched> answers = new HashMap<>();
        final Map<TopicPartition, Long> logStarts = new HashMap<>();
        final List<Long> fetchOffsets = new ArrayList<>();
        boolean down;

        void topic(String name, Uuid id, int partitions) {
            List<SourceClient.PartitionInfo> infos = new ArrayList<>();
            for (int i = 0; i < partitions; i++) {
                infos.add(new SourceClient.PartitionInfo(i, 0, 7, SourceClient.SourceError.NONE));
            }
            topics.put(name, new SourceClient.TopicInfo(name, id, SourceClient.SourceError.NONE, infos));
        }

        void answer(TopicPartition tp, SourceClient.SourceError error, long hw, long logStart, byte[] records) {
            answers.put(tp, new SourceClient.Fetched(error, hw, logStart, ByteBuffer.wrap(records)));
        }

        void logStart(TopicPartition tp, long offset) {
            logStarts.put(tp, offset);
        }

        @Override
        public SourceClient connect(String host, int port) throws IOException {
            if (down) {
                throw new IOException("connection refused");
            }
            return new SourceClient() {
                @Override
                public Metadata metadata(Collection<String> names) {
                    Map<String, TopicInfo> found = new HashMap<>();
                    for (String name : names) {
                        found.put(
                                name,
                                topics.getOrDefault(
                                        name,
                                        new TopicInfo(name, Uuid.ZERO_UUID, SourceError.UNKNOWN_TOPIC, List.of())));
                    }
                    return new Metadata(Map.of(0, new Broker(0, "source-1", 9092)), found);
                }

                @Override
                public Map<TopicPartition, Fetched> fetch(List<FetchTarget> targets, int maxWaitMs, int maxBytes) {
                    Map<TopicPartition, Fetched> result = new HashMap<>();
                    for (FetchTarget target : targets) {
                        fetchOffsets.add(target.fetchOffset());
                        Fetched answer = answers.get(target.source());
                        if (answer != null) {
                            result.put(target.source(), answer);
                        }
                    }
                    return result;
                }

                @Override
                public Map<TopicPartition, Long> logStartOffsets(Map<TopicPartition, Integer> epochs) {
                    Map<TopicPartition, Long> result = new HashMap<>();
                    epochs.keySet().forEach(tp -> result.put(tp, logStarts.getOrDefault(tp, -1L)));
                    return result;
                }

                @Override
                public void close() {}
            };
        }
    }

    /** Partitions led here, recording every write. */
    private static final class FakeTargets implements MirrorTargets {
        final Map<TopicPartition, LedMirror> led = new HashMap<>();
        final Map<String, Uuid> pinned = new HashMap<>();
        final Map<TopicPartition, MirrorLineage> lineages = new HashMap<>();
        final List<String> appends = new ArrayList<>();
        final List<String> restarts = new ArrayList<>();
        final List<String> aborts = new ArrayList<>();
        final List<LedMirror> promotedOpen = new ArrayList<>();
        RuntimeException failAppendWith;

        void lead(TopicPartition tp, int epoch, long logEnd, String pinnedId) {
            led.put(
                    tp,
                    new LedMirror(
                            tp,
                            epoch,
                            logEnd,
                            new MirrorSpec(SOURCE, "", tp.topic(), pinnedId, MirrorSpec.State.MIRRORING)));
        }

        @Override
        public List<LedMirror> ledMirrors() {
            return List.copyOf(led.values());
        }

        @Override
        public List<LedMirror> promotedWithOpenTransactions() {
            return List.copyOf(promotedOpen);
        }

        @Override
        public List<Long> abortOpenTransactions(TopicPartition partition, int leaderEpoch) {
            aborts.add(partition + " epoch " + leaderEpoch);
            promotedOpen.removeIf(m -> m.partition().equals(partition));
            return List.of(1L);
        }

        @Override
        public long append(TopicPartition partition, int leaderEpoch, long requiredBaseOffset, ByteBuffer records) {
            if (failAppendWith != null) {
                throw failAppendWith;
            }
            appends.add(partition + "@" + requiredBaseOffset + " epoch " + leaderEpoch + " (" + records.remaining()
                    + " bytes)");
            return requiredBaseOffset + 1;
        }

        @Override
        public boolean restartAt(TopicPartition partition, int leaderEpoch, long sourceLogStartOffset) {
            restarts.add(partition + " at " + sourceLogStartOffset + " epoch " + leaderEpoch);
            return true;
        }

        @Override
        public void followSourceLogStart(TopicPartition partition, int leaderEpoch, long sourceLogStartOffset) {}

        @Override
        public void pinSourceTopicId(String topic, Uuid sourceTopicId) {
            pinned.put(topic, sourceTopicId);
        }

        @Override
        public java.util.Optional<MirrorLineage> lineage(TopicPartition partition) {
            return java.util.Optional.ofNullable(lineages.get(partition));
        }

        @Override
        public void recordLineage(TopicPartition partition, int leaderEpoch, MirrorLineage lineage) {
            lineages.put(partition, lineage);
        }
    }

    /** Record batch headers only (base offset, length, partition leader epoch, magic 2), 20 bytes after the length each. */
    private static byte[] batchHeaders(long[] baseOffsets, int... epochs) {
        ByteBuffer out = ByteBuffer.allocate(baseOffsets.length * 32);
        for (int i = 0; i < baseOffsets.length; i++) {
            out.putLong(baseOffsets[i])
                    .putInt(20)
                    .putInt(epochs[i])
                    .put((byte) 2)
                    .put(new byte[15]);
        }
        return out.array();
    }
}
