package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerMessage.Response;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.DescribeQuorum;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.RaftConfig;
import dev.strait.broker.raft.metadata.MetadataImage.NodeRegistration;
import dev.strait.time.Time;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A lone voter's event loop without its thread: the test is the driver, with a clock it moves by hand and no
 * sockets. What {@link SingleVoterQuorumIT} sees through the system clock and real threads, turn by turn here.
 */
class QuorumLoopTest {

    private static final int NODE = 0;
    private static final long SESSION_MS = 1_500;
    private static final long HEARTBEAT_MS = 250;
    private static final int MAX_TURNS = 1_000;

    @TempDir
    Path dir;

    private long now = 1_000_000;
    private final Time time = () -> now;
    private final List<ClusterImage> published = new ArrayList<>();
    private final List<ControllerMessage> sent = new ArrayList<>();
    private FileRaftStorage storage;
    private QuorumLoop loop;

    /** A transport to nowhere: a lone voter has no one to talk to. */
    private final class NoNetwork implements ControllerTransport {
        @Override
        public int start() {
            return -1;
        }

        @Override
        public void send(int destination, ControllerMessage message) {
            sent.add(message);
        }

        @Override
        public void close() {}
    }

    @BeforeEach
    void open() throws IOException {
        Path logDir = dir.resolve("__cluster_metadata-0");
        QuorumConfig settings = new QuorumConfig(
                NODE,
                Map.of(NODE, new InetSocketAddress("127.0.0.1", 1)),
                "127.0.0.1",
                0,
                logDir,
                SESSION_MS,
                HEARTBEAT_MS,
                1,
                10_000,
                2_000,
                new RaftConfig(500, 300, 250, 20, 200, 1_500, 500));
        storage = FileRaftStorage.open(logDir);
        PeerLiveness liveness = new PeerLiveness(time, new ControllerTransport.Receiver() {
            @Override
            public void onMessage(ControllerMessage message) {}

            @Override
            public void onPeerReachable(int peer) {}

            @Override
            public void onPeerUnreachable(int peer) {}
        });
        loop = new QuorumLoop(
                settings,
                time,
                new Random(42),
                storage,
                new NoNetwork(),
                liveness,
                new ReadLease(time, QuorumController.fencingLowerBoundMs(SESSION_MS)),
                new PreviousLife(logDir, dir.resolve("boot_id")),
                published::add,
                now);
    }

    @AfterEach
    void close() throws IOException {
        loop.stop(null);
        storage.close();
    }

    /** One turn of a driver that found nothing queued: the clock moves to the loop's next deadline. */
    private void idleTurn() {
        now += Math.max(1, loop.maxWaitMs(now));
        loop.endTurn(now, true);
    }

    private void turnUntil(String what, BooleanSupplier condition) {
        for (int turn = 0; turn < MAX_TURNS; turn++) {
            if (condition.getAsBoolean()) {
                return;
            }
            idleTurn();
        }
        throw new AssertionError("not within " + MAX_TURNS + " turns: " + what + " (" + loop.describe() + ")");
    }

    private Optional<NodeRegistration> publishedNode() {
        if (published.isEmpty()) {
            return Optional.empty();
        }
        return Optional.ofNullable(
                published.get(published.size() - 1).image().nodes().get(NODE));
    }

    private void registerAndAwaitUnfenced() {
        turnUntil("the active controller", () -> loop.leaderInfo()[1] == 1);
        loop.handle(() -> loop.registerBroker("127.0.0.1", 9092, List.of(), RegisterBroker.UNCLEAN), now);
        turnUntil(
                "registered and unfenced",
                () -> publishedNode().map(n -> !n.fenced()).orElse(false));
    }

    @Test
    void aLoneVoterLeadsRegistersItsBrokerAndPublishesWithoutAThread() {
        // When
        registerAndAwaitUnfenced();

        // Then
        assertThat(loop.isActive()).isTrue();
        assertThat(loop.knownLeader()).isEqualTo(NODE);
        assertThat(loop.registeredNodeEpoch()).isPositive();
        assertThat(publishedNode()).map(NodeRegistration::incarnationId).contains(loop.brokerIncarnation());
        assertThat(sent).isEmpty();
    }

    @Test
    void aCallMadeBeforeAnyLeaderIsKnownIsHandledInPlaceOnceThisNodeLeads() {
        // Given: no leader yet
        assertThat(loop.leaderInfo()[0]).isEqualTo(-1);
        CompletableFuture<ControllerResponse> answer = new CompletableFuture<>();

        // When
        loop.handle(() -> loop.addCall(new DescribeQuorum(), answer, now + 10_000), now);

        // Then
        assertThat(answer).isNotDone();
        turnUntil("the call answered", answer::isDone);
        assertThat(answer.join().quorum().leaderId()).isEqualTo(NODE);
        assertThat(sent).isEmpty();
    }

    @Test
    void aSilentNodeIsFencedOnlyInATurnThatDrainedTheQueue() {
        // Given: registered, then silent past its session
        registerAndAwaitUnfenced();
        loop.handle(() -> loop.pauseHeartbeats(true), now);
        now += SESSION_MS + 1;

        // When: the driver had more events queued than it handles in one turn
        loop.endTurn(now, false);

        // Then: a heartbeat may be among them, so no fencing yet
        assertThat(publishedNode()).map(NodeRegistration::fenced).contains(false);

        // When: the queue is drained
        loop.endTurn(now, true);

        // Then
        assertThat(publishedNode()).map(NodeRegistration::fenced).contains(true);
    }

    @Test
    void aRepeatedRequestFromAnotherNodeJoinsTheFirstInsteadOfDecidingTwice() {
        // Given
        registerAndAwaitUnfenced();
        Request request = new Request(5, 77, new CreateTopic("t", 1, 1, Map.of()));

        // When: node 5 heard nothing in time and repeated its attempt
        loop.handle(() -> loop.onMessage(request), now);
        loop.handle(() -> loop.onMessage(request), now);
        loop.endTurn(now, true);

        // Then: both attempts get the first one's answer (without the join, the second finds TOPIC_EXISTS)
        assertThat(sent)
                .filteredOn(m -> m instanceof Response r && r.correlationId() == 77)
                .hasSize(2)
                .allSatisfy(m -> assertThat(((Response) m).response().error()).isEqualTo(Error.NONE));
    }

    @Test
    void aRequestFromAnotherNodeBeforeThisOneLeadsIsAnsweredNotController() {
        // When
        loop.handle(() -> loop.onMessage(new Request(5, 77, new CreateTopic("t", 1, 1, Map.of()))), now);

        // Then
        assertThat(sent)
                .singleElement()
                .satisfies(m -> assertThat(((Response) m).response().error()).isEqualTo(Error.NOT_CONTROLLER));
    }

    @Test
    void stoppingTheLoopFailsItsPendingCalls() {
        // Given: a call that no leader can answer yet
        CompletableFuture<ControllerResponse> answer = new CompletableFuture<>();
        loop.handle(() -> loop.addCall(new DescribeQuorum(), answer, now + 10_000), now);

        // When
        loop.stop(null);

        // Then
        assertThat(answer).isCompletedExceptionally();
    }
}
