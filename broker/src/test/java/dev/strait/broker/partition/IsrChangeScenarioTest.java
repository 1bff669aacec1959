package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.replication.ProduceCheck;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, defect 4: what a leader does with its pending AlterPartition when the answer is an error. Three real
 * {@link ReplicaManager}s (A = 0 leads, B = 1, C = 2; min.insync.replicas 2) over a {@link ScriptedController};
 * the test moves every fetch by hand, so each schedule runs exactly as written.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IsrChangeScenarioTest {

    private static final String TOPIC = "t";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int A = 0;
    private static final int B = 1;
    private static final int C = 2;

    @TempDir
    Path dir;

    private final ScriptedController controller = new ScriptedController();
    private final AtomicLong clockMs = new AtomicLong(1_000);
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final ReplicaManager[] nodes = new ReplicaManager[3];
    /** Offset and value of every acks=all record the leader acknowledged. */
    private final Map<Long, String> acknowledged = new LinkedHashMap<>();

    @BeforeEach
    void start() {
        for (int id = 0; id < 3; id++) {
            controller.register(id, 9092 + id);
        }
        controller.createTopic(TOPIC, List.of(A, B, C), Map.of("min.insync.replicas", "2"));
        controller.changeIsr(TOPIC, List.of(A, B)); // C is catching up
        for (int id = 0; id < 3; id++) {
            nodes[id] = new ReplicaManager(
                    controller.view(id), dir.resolve("node-" + id), Map.of(), clockMs::get, scheduler, 30_000);
            nodes[id].startup();
        }
    }

    @AfterEach
    void stop() {
        for (ReplicaManager node : nodes) {
            if (node != null) {
                node.close();
            }
        }
        scheduler.shutdownNow();
    }

    private Partition replica(int node) {
        return nodes[node].partition(TP).orElseThrow();
    }

    /** One round trip of a follower's replica fetcher: truncation if it must, else one fetch. */
    private void fetch(int follower, int leader) {
        Partition f = replica(follower);
        Partition l = replica(leader);
        int epoch = f.leaderEpoch();
        OptionalInt asked = f.epochToQuery(epoch);
        if (asked.isPresent()) {
            f.onEpochEndOffset(epoch, l.endOffsetForEpoch(asked.getAsInt()));
        }
        long offset = f.fetchOffset(epoch).orElseThrow();
        nodes[leader].onFollowerFetch(TP, follower, -1, offset);
        ByteBuffer records = l.readForFollower(offset, 1 << 20).records().readAll();
        f.appendAsFollower(epoch, offset, records, l.highWatermark(), l.logStartOffset());
    }

    /** An acks=all produce at the leader; returns the append, to check on later. */
    private Partition.LeaderAppend produce(int leader, String value) {
        ByteBuffer batch = MemoryRecords.withRecords(
                        Compression.NONE, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)))
                .buffer();
        return nodes[leader].appendRecords(TP, batch, List.of(new ProducerBatch(-1, (short) -1, -1, -1, 1)), true);
    }

    /** What the delayed produce would answer now; an acknowledgement is recorded for the checker. */
    private ProduceCheck check(int leader, Partition.LeaderAppend append, String value) {
        ProduceCheck check =
                replica(leader).checkProduceCompletion(append.result().lastOffset(), append.leaderEpoch());
        if (check == ProduceCheck.OK) {
            acknowledged.put(append.result().firstOffset(), value);
        }
        return check;
    }

    private ScriptedController.AlterRequest nextAlterRequest() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            Optional<ScriptedController.AlterRequest> request = controller.nextAlterRequest();
            if (request.isPresent()) {
                return request.get();
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("no AlterPartition reached the controller");
    }

    /** Answers every AlterPartition waiting at the controller the way the controller would: stale ones refused. */
    private void answerWaitingRequests() {
        for (Optional<ScriptedController.AlterRequest> r = controller.nextAlterRequest();
                r.isPresent();
                r = controller.nextAlterRequest()) {
            r.get().commitAndAnswer();
        }
    }

    /** C catches up, and A proposes to add it: the controller commits the expansion, but A never hears so. */
    private ScriptedController.AlterRequest expansionCommittedAndAnswerLost() {
        fetch(B, A);
        fetch(C, A);
        ScriptedController.AlterRequest expansion = nextAlterRequest();
        assertThat(expansion.newIsr).containsExactly(A, B, C);
        controller.cutOff(A); // A's metadata stops here, as does the answer
        assertThat(expansion.commit()).isTrue();
        expansion.loseAnswer();
        return expansion;
    }

    private void waitFor(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.onSpinWait();
        }
    }

    /**
     * The schedule of the issue: the controller committed ISR {A, B, C} but A's answer was lost; A must keep
     * counting C for the high watermark. The old code dropped the pending change, advanced the high watermark
     * on A and B only and acknowledged a record C does not have; the controller then lost B and A and elected C.
     */
    @Test
    void aCommittedExpansionWhoseAnswerWasLostStillCountsForTheHighWatermark() {
        // Given
        expansionCommittedAndAnswerLost();
        answerWaitingRequests(); // a retry, if one came already: stale now
        assertThat(controller.state(TOPIC).isr()).containsExactly(A, B, C);

        // When: C is cut off from A; A takes a record and B replicates it
        Partition.LeaderAppend append = produce(A, "m");
        fetch(B, A);
        fetch(B, A);
        ProduceCheck answer = check(A, append, "m");
        answerWaitingRequests();
        // B is fenced (removed from the ISR), A dies, and the controller elects C from ISR {A, C}
        controller.changeIsr(TOPIC, List.of(A, C));
        nodes[A].close();
        nodes[A] = null;
        controller.elect(TOPIC, C, List.of(C));
        nodes[C].reconcile();

        // Then: nothing acknowledged is missing on the new leader
        assertThat(replica(C).isLeader()).isTrue();
        for (Map.Entry<Long, String> record : acknowledged.entrySet()) {
            assertThat(record.getKey())
                    .as("acknowledged %s is on the new leader C", record)
                    .isLessThan(replica(C).logEndOffset());
        }
        assertThat(answer).as("A still waits for C").isEqualTo(ProduceCheck.PENDING);
    }

    @Test
    void anUnansweredChangeStaysPendingAndIsSentAgain() {
        // Given
        ScriptedController.AlterRequest lost = expansionCommittedAndAnswerLost();

        // Then: the same change again, and the maximal ISR still has C
        ScriptedController.AlterRequest retry = nextAlterRequest();
        assertThat(retry.newIsr).isEqualTo(lost.newIsr);
        assertThat(retry.partitionEpoch).isEqualTo(lost.partitionEpoch);
        assertThat(replica(A).maximalIsr()).containsExactlyInAnyOrder(A, B, C);

        // When: the retry is stale (the first attempt was committed), and A's metadata catches up
        retry.commitAndAnswer();
        assertThat(replica(A).maximalIsr())
                .as("stale: pending until newer metadata arrives")
                .containsExactlyInAnyOrder(A, B, C);
        controller.reconnect(A);
        nodes[A].reconcile();

        // Then: the committed ISR, with nothing pending
        assertThat(replica(A).maximalIsr()).containsExactlyInAnyOrder(A, B, C);
        assertThat(controller.state(TOPIC).isr()).containsExactly(A, B, C);
        Partition.LeaderAppend append = produce(A, "x");
        fetch(B, A);
        fetch(B, A);
        assertThat(check(A, append, "x")).as("C counts").isEqualTo(ProduceCheck.PENDING);
        fetch(C, A);
        fetch(C, A);
        assertThat(check(A, append, "x")).isEqualTo(ProduceCheck.OK);
    }

    @Test
    void aChangeTheControllerSaysItDidNotApplyIsDropped() {
        // Given: A proposes adding C
        fetch(B, A);
        fetch(C, A);
        ScriptedController.AlterRequest expansion = nextAlterRequest();
        assertThat(replica(A).maximalIsr()).containsExactlyInAnyOrder(A, B, C);

        // When: the controller refuses it without applying it (C is fenced, say)
        expansion.refuseInvalid();

        // Then: the committed ISR counts again, and a later fetch of C may propose it anew
        waitFor("the pending change is dropped", () -> replica(A).maximalIsr().equals(Set.of(A, B)));
        fetch(C, A);
        assertThat(nextAlterRequest().newIsr).containsExactly(A, B, C);
    }

    @Test
    void aPendingShrinkDoesNotCountUntilCommitted() {
        // Given: C is in the ISR and A leads with ISR {A, B, C}
        fetch(B, A);
        fetch(C, A);
        nextAlterRequest().commitAndAnswer();
        nodes[A].reconcile();
        assertThat(controller.state(TOPIC).isr()).containsExactly(A, B, C);
        // C stops fetching for longer than replica.lag.time.max.ms; A proposes to remove it
        Partition.LeaderAppend append = produce(A, "y");
        fetch(B, A);
        clockMs.addAndGet(31_000);
        fetch(B, A);
        nodes[A].maybeShrinkIsr();
        ScriptedController.AlterRequest shrink = nextAlterRequest();
        assertThat(shrink.newIsr).containsExactly(A, B);

        // When: it is committed, but neither its answer nor the metadata reaches A
        controller.cutOff(A);
        shrink.commit();
        shrink.loseAnswer();

        // Then: until A learns the outcome, C still counts: y is not acknowledged on A and B alone
        assertThat(check(A, append, "y")).isEqualTo(ProduceCheck.PENDING);
        assertThat(replica(A).maximalIsr()).containsExactlyInAnyOrder(A, B, C);
        controller.reconnect(A);
        nodes[A].reconcile();
        assertThat(replica(A).maximalIsr()).containsExactlyInAnyOrder(A, B);
        assertThat(check(A, append, "y")).isEqualTo(ProduceCheck.OK);
    }
}
