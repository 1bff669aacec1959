package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.ManualScheduler;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.time.Await;
import dev.strait.time.ManualTime;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The broker's shard loops: a shard's requests and ticks are tasks on its loop, applied one at a time in arrival
 * order on the loop's thread, never on a caller's, and a caller never waits for the shard. The loop and the callers
 * are real threads, since which thread runs what is the point; the ticks come due on a manual clock, when the test
 * says, so nothing here depends on how fast the machine is.
 */
class GroupShardLoopTest {

    private static final String LOOP_THREAD = "strait-group-coordinator-0";
    private static final long TICK_MS = 100;
    /** Bounds waits for another thread's effect only; no assertion depends on it. */
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    /** The in-memory log of {@link GroupCoordinatorTest}; its first append waits until the test lets it go. */
    private final class BlockingLog implements OffsetsLog {
        final GroupCoordinatorTest.MemoryLog log = new GroupCoordinatorTest.MemoryLog();
        final CountDownLatch appendEntered = new CountDownLatch(1);
        final CountDownLatch appendReleased = new CountDownLatch(1);
        final AtomicBoolean inAppend = new AtomicBoolean();
        final List<String> appendThreads = new CopyOnWriteArrayList<>();
        volatile RuntimeException failAppends;

        @Override
        public Appended append(int partition, List<Entry> records) {
            if (failAppends != null) {
                throw failAppends;
            }
            inAppend.set(true);
            try {
                appendThreads.add(Thread.currentThread().getName());
                loopEvents.add("append");
                if (appendEntered.getCount() > 0) {
                    appendEntered.countDown();
                    awaitRelease();
                }
                return log.append(partition, records);
            } finally {
                inAppend.set(false);
            }
        }

        // Unbounded: the test releases it, and so does close() whatever happened before.
        private void awaitRelease() {
            try {
                appendReleased.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while holding the loop", e);
            }
        }

        @Override
        public Appended appendTransactional(int partition, long producerId, short producerEpoch, List<Entry> records) {
            return log.appendTransactional(partition, producerId, producerEpoch, records);
        }

        @Override
        public Optional<Position> position(int partition) {
            return log.position(partition);
        }

        @Override
        public void awaitReplication(int partition, Appended appended, Runnable onChange) {
            log.awaitReplication(partition, appended, onChange);
        }

        @Override
        public long replay(int partition, RecordConsumer consumer) {
            return log.replay(partition, consumer);
        }
    }

    /** What ran on the loop, in order: appends and ticks. */
    private final List<String> loopEvents = new CopyOnWriteArrayList<>();

    private final BlockingLog log = new BlockingLog();
    private final ManualTime time = new ManualTime();
    private final ManualScheduler timer = new ManualScheduler(time);
    private final Set<String> clockThreads = ConcurrentHashMap.newKeySet();
    private final Set<String> tickThreads = ConcurrentHashMap.newKeySet();
    /** Clock reads while an append was in progress: another task (a tick, a request) ran inside it. */
    private final AtomicInteger readsDuringAppend = new AtomicInteger();

    private final List<Throwable> faults = new CopyOnWriteArrayList<>();
    private GroupCoordinator coordinator;

    private final Time clock = () -> {
        clockThreads.add(Thread.currentThread().getName());
        if (log.inAppend.get()) {
            readsDuringAppend.incrementAndGet();
        }
        return time.milliseconds();
    };

    /** Counts each tick where it runs, then runs it. */
    private final class RecordingLoops implements ShardLoops {
        final ShardLoops loops = new ManualTickShardLoops(1, timer);

        @Override
        public void execute(int shard, Runnable task) {
            loops.execute(shard, task);
        }

        @Override
        public void scheduleEvery(int shard, long periodMs, Runnable tick) {
            loops.scheduleEvery(shard, periodMs, () -> {
                tickThreads.add(Thread.currentThread().getName());
                loopEvents.add("tick");
                tick.run();
            });
        }

        @Override
        public void close() {
            loops.close();
        }
    }

    /** One shard on one real loop thread; its ticks every {@link #TICK_MS} of the manual clock. */
    private GroupCoordinator start() {
        coordinator = new GroupCoordinator(
                new GroupCoordinator.Config(1, 0, 1000, 60_000, TICK_MS),
                log,
                clock,
                () -> "member",
                new RecordingLoops());
        coordinator.setFaultHandler((what, e) -> faults.add(e));
        coordinator.startup();
        waitUntil("the shard loaded", () -> coordinator.isActive(0));
        return coordinator;
    }

    @AfterEach
    void close() {
        log.appendReleased.countDown();
        if (coordinator != null) {
            coordinator.close();
        }
    }

    private static void waitUntil(String what, BooleanSupplier condition) {
        Await.until(what, PATIENCE, condition);
    }

    private static Map<TopicPartitionKey, OffsetAndMetadata> offset(long offset) {
        return Map.of(new TopicPartitionKey("t", 0), new OffsetAndMetadata(offset, -1, "", -1));
    }

    /** Commits {@code offset} from a thread of its own; returns once that thread's call returned. */
    private void commitFrom(String threadName, long offset, List<String> answers) {
        Thread caller = new Thread(
                () -> coordinator.commitOffsets(
                        "g",
                        "",
                        null,
                        -1,
                        offset(offset),
                        error -> answers.add(offset + " " + error + " on "
                                + Thread.currentThread().getName())),
                threadName);
        caller.start();
        waitUntil(threadName + "'s call returned although the shard's loop is busy", () -> !caller.isAlive());
    }

    @Test
    void requestsFromTwoThreadsApplyInArrivalOrderOnTheLoopAndNoTickRunsInsideOne() {
        // Given: the first commit holds the shard's loop inside its append
        start();
        List<String> answers = new CopyOnWriteArrayList<>();
        commitFrom("caller-a", 1, answers);
        waitUntil("the first commit's append holds the loop", () -> log.appendEntered.getCount() == 0);

        // When: three ticks come due, then two more commits arrive from two other threads, in this order
        timer.advance(3 * TICK_MS);
        commitFrom("caller-b", 2, answers);
        commitFrom("caller-c", 3, answers);
        log.appendReleased.countDown();

        // Then: applied and answered one after the other, in arrival order, all on the loop's thread
        waitUntil("three commits answered", () -> answers.size() == 3);
        assertThat(answers)
                .containsExactly("1 NONE on " + LOOP_THREAD, "2 NONE on " + LOOP_THREAD, "3 NONE on " + LOOP_THREAD);
        assertThat(log.appendThreads).containsExactly(LOOP_THREAD, LOOP_THREAD, LOOP_THREAD);
        AtomicReference<GroupApi.FetchResult> fetched = new AtomicReference<>();
        coordinator.fetchOffsets("g", null, -1, null, false, fetched::set);
        waitUntil("OffsetFetch answered", () -> fetched.get() != null);
        assertThat(fetched.get().offsets().get(new TopicPartitionKey("t", 0)).offset())
                .isEqualTo(3);

        // And: the ticks that came due ran after the request that held the loop, never inside it, and on the loop
        assertThat(loopEvents).containsExactly("append", "tick", "tick", "tick", "append", "append");
        assertThat(readsDuringAppend)
                .as("clock reads while an append held the loop")
                .hasValue(0);
        assertThat(tickThreads).containsExactly(LOOP_THREAD);
        assertThat(clockThreads).containsExactly(LOOP_THREAD);
        assertThat(faults).isEmpty();
    }

    @Test
    void aTaskThatThrowsIsReportedAsAFatalFault() {
        start();
        log.failAppends = new IllegalStateException("disk on fire");
        List<GroupError> answers = new CopyOnWriteArrayList<>();
        coordinator.commitOffsets("g", "", null, -1, offset(1), answers::add);
        waitUntil("the fault reported", () -> !faults.isEmpty());
        assertThat(faults.get(0)).hasMessage("disk on fire");
        assertThat(answers).as("the failed task answered nothing").isEmpty();

        // The loop itself lives on: the broker decides what a fault means (it stops), not the loop.
        log.failAppends = null;
        log.appendReleased.countDown();
        coordinator.commitOffsets("g", "", null, -1, offset(2), answers::add);
        waitUntil("the next commit answered", () -> answers.size() == 1);
        assertThat(answers).containsExactly(GroupError.NONE);
    }

    @Test
    void anAnswerThatThrowsFailsThatAnswerAloneAndIsNoFault() {
        start();
        log.appendReleased.countDown();
        coordinator.commitOffsets("g", "", null, -1, offset(1), error -> {
            throw new IllegalStateException("a bug building the response");
        });
        List<GroupError> answers = new CopyOnWriteArrayList<>();
        coordinator.commitOffsets("g", "", null, -1, offset(2), answers::add);
        waitUntil("the next commit answered", () -> answers.size() == 1);
        assertThat(answers).containsExactly(GroupError.NONE);
        assertThat(faults)
                .as("a failed answer is not a fault of the coordinator")
                .isEmpty();
    }
}
