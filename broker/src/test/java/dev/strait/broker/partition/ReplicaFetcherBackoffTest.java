package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.replication.ReplicationConfig;
import dev.strait.broker.replication.TruncationRule;
import dev.strait.time.Await;
import dev.strait.time.ManualTime;
import dev.strait.time.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, defect 3 (second half): a partition the leader keeps answering with an error backs off alone; the
 * other partitions the same fetcher thread follows keep replicating. The fetcher runs on its thread against an
 * in-process leader made of real {@link Partition}s; both wait on a manual clock that only the test moves, so a
 * backoff ends exactly when the test says and never because the machine was slow.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReplicaFetcherBackoffTest {

    private static final TopicPartition STUCK = new TopicPartition("stuck", 0);
    private static final TopicPartition HEALTHY = new TopicPartition("healthy", 0);
    private static final long BACKOFF_MS = 1_000;

    @TempDir
    Path dir;

    private final ManualTime time = new ManualTime();
    /**
     * The manual clock as a clock that only tells time: the threads under test wait on it by polling, and only the
     * test moves it ({@link ManualTime}'s own waits would move it themselves, ending every backoff at once).
     */
    private final Time clock = time::milliseconds;

    private final List<Partition> opened = new ArrayList<>();
    private ReplicaFetcherManager fetchers;

    @AfterEach
    void close() {
        if (fetchers != null) {
            fetchers.close();
        }
        opened.forEach(Partition::close);
    }

    private Partition open(TopicPartition tp, int localId) {
        PartitionLog log = PartitionLog.open(dir.resolve(tp + "-on-" + localId), LogConfig.defaults(), Time.SYSTEM);
        Partition partition = new Partition(
                tp, Uuid.randomUuid(), log, localId, new ReplicationConfig(30_000, 1, TruncationRule.LEADER_EPOCH));
        partition.applyAssignment(new PartitionState(1, 0, List.of(0, 1), List.of(0, 1), 0), 0);
        opened.add(partition);
        return partition;
    }

    @Test
    void aPartitionAnsweredWithErrorsIsAskedAgainOnlyOnceItsBackoffIsOverWhileTheOthersReplicate() throws Exception {
        // Given: node 0 follows two partitions led by node 1; the leader answers one of them with errors only
        Partition leader = open(HEALTHY, 1);
        Partition follower = open(HEALTHY, 0);
        Partition stuck = open(STUCK, 0);
        appendOnLeader(leader, "v1");
        InProcessLeader leaderClient = new InProcessLeader(Map.of(HEALTHY, leader), clock);
        ScriptedController controller = new ScriptedController();
        controller.register(1, 9092);
        fetchers = new ReplicaFetcherManager(
                0,
                controller.view(0),
                (id, host, port) -> leaderClient,
                new ReplicaFetcherManager.Config(50, 1, 1 << 20, 10 << 20, BACKOFF_MS),
                clock);
        fetchers.onBecomeFollower(stuck, 1, 0);
        fetchers.onBecomeFollower(follower, 1, 0);
        // Caught up and long-polling: the round that was answered with the error is over, its backoff set.
        waitFor(
                "the follower caught up and waits for data",
                () -> follower.logEndOffset() == 1 && leaderClient.polls() > 0);
        assertThat(leaderClient.asked(STUCK)).isEqualTo(1);

        // When: all of the backoff but its last millisecond passes, and the leader takes a record
        int pollsBefore = leaderClient.polls();
        time.advance(BACKOFF_MS - 1);
        appendOnLeader(leader, "v2");
        leaderClient.dataArrived();

        // Then: the healthy partition replicates in rounds begun after that, none of which asks the failing one
        waitFor(
                "the follower has 2 records and polls again",
                () -> follower.logEndOffset() == 2 && leaderClient.polls() > pollsBefore);
        assertThat(leaderClient.asked(STUCK))
                .as("the failing partition asked again before its backoff was over")
                .isEqualTo(1);

        // When: the last millisecond passes, and a record ends the poll in flight
        time.advance(1);
        appendOnLeader(leader, "v3");
        leaderClient.dataArrived();

        // Then: the next round asks the failing partition again, and the healthy one has its record
        waitFor("the failing partition asked again", () -> leaderClient.asked(STUCK) == 2);
        waitFor("the follower has 3 records", () -> follower.logEndOffset() == 3);
        assertThat(stuck.logEndOffset()).isZero();
    }

    @Test
    void aPartitionDeletedWhileItsFetchIsInFlightIsDroppedAndTheBrokerGoesOn() throws Exception {
        // Given: node 0 follows two partitions led by node 1, and records wait on both leaders
        Partition leaderOfDoomed = open(STUCK, 1);
        Partition leader = open(HEALTHY, 1);
        Partition doomed = open(STUCK, 0);
        Partition follower = open(HEALTHY, 0);
        appendOnLeader(leaderOfDoomed, "d");
        appendOnLeader(leader, "v1");
        InProcessLeader inProcess = new InProcessLeader(Map.of(STUCK, leaderOfDoomed, HEALTHY, leader), clock);
        // When: the doomed partition is deleted (its log closed) while a fetch for it is in flight
        java.util.concurrent.atomic.AtomicBoolean deleted = new java.util.concurrent.atomic.AtomicBoolean();
        LeaderClient deletingDuringFetch = new LeaderClient() {
            @Override
            public Map<TopicPartition, FetchedPartition> fetch(
                    List<FetchTarget> targets, int maxWaitMs, int minBytes, int maxBytes) throws IOException {
                Map<TopicPartition, FetchedPartition> answer = inProcess.fetch(targets, maxWaitMs, minBytes, maxBytes);
                if (answer.containsKey(STUCK) && deleted.compareAndSet(false, true)) {
                    fetchers.onRemoved(STUCK); // what the deletion of the topic does on this broker
                    doomed.close();
                }
                return answer;
            }

            @Override
            public Map<TopicPartition, EpochAnswer> offsetsForLeaderEpoch(List<EpochQuery> queries) throws IOException {
                return inProcess.offsetsForLeaderEpoch(queries);
            }

            @Override
            public void close() {}
        };
        ScriptedController controller = new ScriptedController();
        controller.register(1, 9092);
        List<String> faults = new java.util.concurrent.CopyOnWriteArrayList<>();
        fetchers = new ReplicaFetcherManager(
                0,
                controller.view(0),
                (id, host, port) -> deletingDuringFetch,
                new ReplicaFetcherManager.Config(50, 1, 1 << 20, 10 << 20, 10),
                clock);
        fetchers.setFaultHandler((what, cause) -> faults.add(what + ": " + cause));
        fetchers.onBecomeFollower(doomed, 1, 0);
        fetchers.onBecomeFollower(follower, 1, 0);

        // Then: the other partition replicates, and nothing is reported as a fault (which would halt the broker)
        waitFor("the healthy follower has its record", () -> follower.logEndOffset() == 1);
        appendOnLeader(leader, "v2");
        inProcess.dataArrived();
        waitFor("the healthy follower has its second record", () -> follower.logEndOffset() == 2);
        assertThat(faults).isEmpty();
    }

    @Test
    void aThreadBackingOffAfterAFailedConnectionWaitsOnTheInjectedClockUntilItsBackoffIsOver() throws Exception {
        // Given: node 0 follows a partition led by node 1, whose connection fails every time
        Partition follower = open(HEALTHY, 0);
        AtomicInteger connects = new AtomicInteger();
        FetcherClock fetcherClock = new FetcherClock(time);
        fetchers = refusingFetchers(connects, fetcherClock);
        fetchers.onBecomeFollower(follower, 1, 0);
        waitFor(
                "the first connection failed and the thread backs off",
                () -> connects.get() == 1 && fetcherClock.readsSinceConnect() > 0);

        // When: all of the backoff but its last millisecond passes
        time.advance(BACKOFF_MS - 1);
        long afterAdvance = fetcherClock.reads();

        // Then: the thread reads the moved clock and goes on waiting
        waitFor("the fetcher thread looked at the moved clock", () -> fetcherClock.readsSince(afterAdvance) >= 3);
        assertThat(connects.get())
                .as("connected again before the backoff was over")
                .isEqualTo(1);

        // When: the last millisecond passes
        time.advance(1);

        // Then: the thread connects again
        waitFor("the thread connects again once the backoff is over", () -> connects.get() == 2);
    }

    @Test
    void aNewEpochCutsTheThreadsBackoffShortWithoutTheClockMoving() throws Exception {
        // Given: the thread backs off after a failed connection, on a clock that does not move
        Partition follower = open(HEALTHY, 0);
        AtomicInteger connects = new AtomicInteger();
        FetcherClock fetcherClock = new FetcherClock(time);
        fetchers = refusingFetchers(connects, fetcherClock);
        fetchers.onBecomeFollower(follower, 1, 0);
        waitFor(
                "the first connection failed and the thread backs off",
                () -> connects.get() == 1 && fetcherClock.readsSinceConnect() > 0);
        long startMs = time.milliseconds();

        // When: the partition's next leader epoch arrives
        fetchers.onBecomeFollower(follower, 1, 1);

        // Then: the thread connects again at once, with no time passed on its clock
        waitFor("the thread connects again", () -> connects.get() == 2);
        assertThat(time.milliseconds()).isEqualTo(startMs);
    }

    /** Fetchers from node 1 (registered) whose every connection fails, counted in {@code connects}. */
    private ReplicaFetcherManager refusingFetchers(AtomicInteger connects, FetcherClock fetcherClock) {
        ScriptedController controller = new ScriptedController();
        controller.register(1, 9092);
        return new ReplicaFetcherManager(
                0,
                controller.view(0),
                (id, host, port) -> {
                    connects.incrementAndGet();
                    fetcherClock.connecting();
                    throw new IOException("connection refused (test)");
                },
                new ReplicaFetcherManager.Config(50, 1, 1 << 20, 10 << 20, BACKOFF_MS),
                fetcherClock);
    }

    /**
     * The manual clock as a clock that only tells time (its waits poll it, as {@link #clock}'s do), counting the reads
     * made by fetcher threads: a count that grows after the test moved the clock shows the waiting thread saw it. After
     * a failed connection, the fetcher thread reads the clock only in its backoff.
     */
    private static final class FetcherClock implements Time {
        private final ManualTime time;
        private final java.util.concurrent.atomic.AtomicLong reads = new java.util.concurrent.atomic.AtomicLong();
        private volatile long readsAtConnect;

        FetcherClock(ManualTime time) {
            this.time = time;
        }

        @Override
        public long milliseconds() {
            if (Thread.currentThread().getName().startsWith("strait-replica-fetcher-")) {
                reads.incrementAndGet();
            }
            return time.milliseconds();
        }

        @Override
        public long nanoseconds() {
            return time.nanoseconds();
        }

        long reads() {
            return reads.get();
        }

        long readsSince(long before) {
            return reads.get() - before;
        }

        /** Called by the test's connection factory: reads from here on are the backoff's. */
        void connecting() {
            readsAtConnect = reads.get();
        }

        long readsSinceConnect() {
            return reads.get() - readsAtConnect;
        }
    }

    private static void appendOnLeader(Partition leader, String value) {
        leader.appendAsLeader(batch(value), List.of(new ProducerBatch(-1, (short) -1, -1, -1, 1)), false);
    }

    private static ByteBuffer batch(String value) {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(20), condition);
    }

    /**
     * A leader node in this JVM: partitions it leads answer from their real {@link Partition}, any other with
     * UNKNOWN_EPOCH (as a leader does while its metadata lags). A fetch with nothing to return waits up to its
     * max wait on the test's clock, or until new data arrives, as the broker's delayed fetch does.
     */
    private static final class InProcessLeader implements LeaderClient {
        private final Map<TopicPartition, Partition> led;
        private final Time clock;
        private final Map<TopicPartition, AtomicInteger> asked = new HashMap<>();
        private int polls;

        InProcessLeader(Map<TopicPartition, Partition> led, Time clock) {
            this.led = led;
            this.clock = clock;
        }

        synchronized int asked(TopicPartition tp) {
            return asked.getOrDefault(tp, new AtomicInteger()).get();
        }

        /** Fetches that found nothing and waited: each one a sign that the fetcher began a round and is idle in it. */
        synchronized int polls() {
            return polls;
        }

        synchronized void dataArrived() {
            notifyAll();
        }

        private synchronized void count(TopicPartition tp) {
            asked.computeIfAbsent(tp, k -> new AtomicInteger()).incrementAndGet();
        }

        @Override
        public synchronized Map<TopicPartition, FetchedPartition> fetch(
                List<FetchTarget> targets, int maxWaitMs, int minBytes, int maxBytes) {
            if (isEmpty(answer(targets))) {
                polls++;
                try {
                    clock.waitObject(this, () -> !isEmpty(answer(targets)), clock.milliseconds() + maxWaitMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            for (FetchTarget target : targets) {
                count(target.topicPartition());
            }
            return answer(targets);
        }

        private static boolean isEmpty(Map<TopicPartition, FetchedPartition> answer) {
            return answer.values().stream()
                    .allMatch(
                            p -> p.error() == ReplicaError.NONE && !p.records().hasRemaining());
        }

        private Map<TopicPartition, FetchedPartition> answer(List<FetchTarget> targets) {
            Map<TopicPartition, FetchedPartition> result = new HashMap<>();
            for (FetchTarget target : targets) {
                Partition partition = led.get(target.topicPartition());
                if (partition == null) {
                    result.put(
                            target.topicPartition(),
                            new FetchedPartition(ReplicaError.UNKNOWN_EPOCH, -1, -1, ByteBuffer.allocate(0)));
                    continue;
                }
                partition.onFollowerFetch(0, -1, target.fetchOffset(), 0);
                ByteBuffer records = partition
                        .readForFollower(target.fetchOffset(), target.maxBytes())
                        .records()
                        .readAll();
                result.put(
                        target.topicPartition(),
                        new FetchedPartition(
                                ReplicaError.NONE, partition.highWatermark(), partition.logStartOffset(), records));
            }
            return result;
        }

        @Override
        public synchronized Map<TopicPartition, EpochAnswer> offsetsForLeaderEpoch(List<EpochQuery> queries) {
            Map<TopicPartition, EpochAnswer> result = new HashMap<>();
            for (EpochQuery query : queries) {
                count(query.topicPartition());
                Partition partition = led.get(query.topicPartition());
                if (partition == null) {
                    result.put(query.topicPartition(), new EpochAnswer(ReplicaError.UNKNOWN_EPOCH, -1, -1));
                } else {
                    EpochEndOffset end = partition.endOffsetForEpoch(query.epoch());
                    result.put(
                            query.topicPartition(),
                            new EpochAnswer(ReplicaError.NONE, end.leaderEpoch(), end.endOffset()));
                }
            }
            return result;
        }

        @Override
        public void close() {}
    }
}
