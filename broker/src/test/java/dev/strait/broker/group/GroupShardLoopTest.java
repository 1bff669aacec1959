package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.time.Time;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The broker's shard loops (real threads): a shard's requests and ticks are tasks on its loop, applied one at a
 * time in arrival order on the loop's thread, never on a caller's, and a caller never waits for the shard.
 */
class GroupShardLoopTest {

    private static final String LOOP_THREAD = "strait-group-coordinator-0";

    /** The in-memory log of {@link GroupCoordinatorTest}; its first append waits until the test lets it go. */
    private static final class BlockingLog implements OffsetsLog {
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
                if (appendEntered.getCount() > 0) {
                    appendEntered.countDown();
                    await(appendReleased);
                }
                return log.append(partition, records);
            } finally {
                inAppend.set(false);
            }
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

    private final BlockingLog log = new BlockingLog();
    private final AtomicLong time = new AtomicLong(1_000);
    private final Set<String> clockThreads = ConcurrentHashMap.newKeySet();
    private final AtomicInteger clockReads = new AtomicInteger();
    /** Clock reads while an append was in progress: another task (a tick, a request) ran inside it. */
    private final AtomicInteger readsDuringAppend = new AtomicInteger();

    private final List<Throwable> faults = new CopyOnWriteArrayList<>();
    private GroupCoordinator coordinator;

    private final Time clock = () -> {
        clockReads.incrementAndGet();
        clockThreads.add(Thread.currentThread().getName());
        if (log.inAppend.get()) {
            readsDuringAppend.incrementAndGet();
        }
        return time.get();
    };

    /** One shard, ticking every millisecond (so ticks are due while a request holds the loop). */
    private GroupCoordinator start() {
        coordinator = new GroupCoordinator(new GroupCoordinator.Config(1, 0, 1000, 60_000, 1), log, clock);
        coordinator.setFaultHandler((what, e) -> faults.add(e));
        coordinator.startup();
        awaitTrue(() -> coordinator.isActive(0), "the shard loaded");
        return coordinator;
    }

    @AfterEach
    void close() {
        log.appendReleased.countDown();
        if (coordinator != null) {
            coordinator.close();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 30 s: " + what);
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }

    private static Map<TopicPartitionKey, OffsetAndMetadata> offset(long offset) {
        return Map.of(new TopicPartitionKey("t", 0), new OffsetAndMetadata(offset, -1, "", -1));
    }

    /** Commits {@code offset} from a thread of its own; returns once that thread's call returned (bounded). */
    private void commitFrom(String threadName, long offset, List<String> answers) throws InterruptedException {
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
        caller.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(caller.isAlive())
                .as("%s's call returned although the shard's loop is busy", threadName)
                .isFalse();
    }

    @Test
    void requestsFromTwoThreadsApplyInArrivalOrderOnTheLoopAndNoTickRunsInsideOne() throws Exception {
        // Given: the first commit holds the shard's loop inside its append
        start();
        List<String> answers = new CopyOnWriteArrayList<>();
        commitFrom("caller-a", 1, answers);
        await(log.appendEntered);

        // When: two more commits arrive from two other threads, in this order, and ticks come due meanwhile
        commitFrom("caller-b", 2, answers);
        commitFrom("caller-c", 3, answers);
        int readsBeforeRelease = clockReads.get();
        log.appendReleased.countDown();

        // Then: applied and answered one after the other, in arrival order, all on the loop's thread
        awaitTrue(() -> answers.size() == 3, "three commits answered");
        assertThat(answers)
                .containsExactly("1 NONE on " + LOOP_THREAD, "2 NONE on " + LOOP_THREAD, "3 NONE on " + LOOP_THREAD);
        assertThat(log.appendThreads).containsExactly(LOOP_THREAD, LOOP_THREAD, LOOP_THREAD);
        AtomicReference<GroupApi.FetchResult> fetched = new AtomicReference<>();
        coordinator.fetchOffsets("g", null, fetched::set);
        awaitTrue(() -> fetched.get() != null, "OffsetFetch answered");
        assertThat(fetched.get().offsets().get(new TopicPartitionKey("t", 0)).offset())
                .isEqualTo(3);

        // And: the ticks that came due ran after the request, never inside it, and only on the loop
        awaitTrue(() -> clockReads.get() > readsBeforeRelease + 10, "ticks ran after the append");
        assertThat(readsDuringAppend)
                .as("clock reads while an append held the loop")
                .hasValue(0);
        assertThat(clockThreads).containsExactly(LOOP_THREAD);
        assertThat(faults).isEmpty();
    }

    @Test
    void aTaskThatThrowsIsReportedAsAFatalFault() {
        start();
        log.failAppends = new IllegalStateException("disk on fire");
        List<GroupError> answers = new CopyOnWriteArrayList<>();
        coordinator.commitOffsets("g", "", null, -1, offset(1), answers::add);
        awaitTrue(() -> !faults.isEmpty(), "the fault reported");
        assertThat(faults.get(0)).hasMessage("disk on fire");
        assertThat(answers).as("the failed task answered nothing").isEmpty();

        // The loop itself lives on: the broker decides what a fault means (it stops), not the loop.
        log.failAppends = null;
        log.appendReleased.countDown();
        coordinator.commitOffsets("g", "", null, -1, offset(2), answers::add);
        awaitTrue(() -> answers.size() == 1, "the next commit answered");
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
        awaitTrue(() -> answers.size() == 1, "the next commit answered");
        assertThat(answers).containsExactly(GroupError.NONE);
        assertThat(faults)
                .as("a failed answer is not a fault of the coordinator")
                .isEmpty();
    }
}
