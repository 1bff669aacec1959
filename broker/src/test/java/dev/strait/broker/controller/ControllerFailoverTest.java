package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, defect 2: controller decisions are atomic across a controller failover, and a newly active controller
 * repairs what a failover left.
 *
 * <p>The model of a failover: the active controller (node 0) takes a decision and appends what it writes to the
 * Raft log; it dies; Raft keeps some prefix of what it appended (whatever reached a majority) and a new controller
 * (node 9) activates on the image of that prefix. Every node's metadata shows that image between the failover and
 * the new controller's first write, so it must already be consistent; after the new controller activated (it may
 * write a reconciliation first) it must be consistent too. Consistent means: no partition is led by a fenced or
 * unknown node; a partition whose ISR holds a live node has a leader and no fenced or unknown node in its ISR
 * (a fenced node stays only as the last member, KIP-966 style); a topic exists with all its partitions and
 * configs or not at all. Each test tries every cut of the decision.
 *
 * <p>No Raft or sockets: a fake proposer appends to {@link #log} and commits at once, time is driven by hand.
 */
class ControllerFailoverTest {

    private static final long SESSION_MS = 1_000;
    private static final int OLD_CONTROLLER = 0;
    private static final int NEW_CONTROLLER = 9;
    private static final List<Integer> BROKERS = List.of(1, 2, 3, 4);

    /** The metadata log: one list of records per Raft entry. */
    private final List<List<MetadataRecord>> log = new ArrayList<>();

    private long now = 10_000;
    private long nextTopic;
    private final Map<Integer, Long> epochs = new HashMap<>();
    private final PeerLiveness liveness = new PeerLiveness(() -> now, new ControllerTransport.Receiver() {
        @Override
        public void onMessage(ControllerMessage message) {}

        @Override
        public void onPeerReachable(int peer) {}

        @Override
        public void onPeerUnreachable(int peer) {}
    });
    private QuorumController controller;
    /** Name to (partition count, configs) of every topic whose creation was requested and accepted. */
    private final Map<String, Map.Entry<Integer, Map<String, String>>> created = new HashMap<>();

    // ---------------------------------------------------------------- the controller's API (proposer, replay)

    /** Activates a controller on {@code image}; what it proposes is appended to {@link #log} and commits at once. */
    private QuorumController activate(int nodeId, ClusterImage image) {
        return new QuorumController(
                nodeId,
                SESSION_MS,
                3,
                image,
                batch -> {
                    log.add(List.copyOf(batch));
                    long offset = log.size() - 1;
                    return new QuorumController.Proposal(offset, CompletableFuture.completedFuture(offset));
                },
                () -> new UUID(7, ++nextTopic),
                liveness,
                now);
    }

    /** The image after replaying one log entry. */
    private static ClusterImage applyEntry(ClusterImage image, long offset, List<MetadataRecord> entry) {
        return image.apply(offset, entry);
    }

    // ---------------------------------------------------------------- helpers

    private ClusterImage replay(int entries) {
        ClusterImage image = ClusterImage.EMPTY;
        for (int offset = 0; offset < entries; offset++) {
            image = applyEntry(image, offset, log.get(offset));
        }
        return image;
    }

    private ControllerResponse call(ControllerRequest request) {
        return controller.handle(request, now).join();
    }

    private void registerAndUnfence(List<Integer> ids) {
        for (int id : ids) {
            ControllerResponse registered = call(new RegisterBroker(id, UUID.randomUUID(), "h", 9000 + id));
            assertThat(registered.error()).isEqualTo(Error.NONE);
            epochs.put(id, registered.value());
            assertThat(call(new Heartbeat(id, registered.value(), registered.offset() + 1, false))
                            .flag())
                    .isFalse();
        }
    }

    private void heartbeat(int... ids) {
        for (int id : ids) {
            assertThat(call(new Heartbeat(id, epochs.get(id), Long.MAX_VALUE, false))
                            .error())
                    .isEqualTo(Error.NONE);
        }
    }

    private void createTopic(String name, int partitions, int factor, Map<String, String> configs) {
        assertThat(call(new CreateTopic(name, partitions, factor, configs)).error())
                .isEqualTo(Error.NONE);
        created.put(name, Map.entry(partitions, configs));
    }

    /** Lets the session of every broker but {@code silent} go on, and expires {@code silent}'s. */
    private void expireSessionOf(int silent) {
        now += SESSION_MS / 2;
        heartbeat(BROKERS.stream()
                .filter(id -> id != silent)
                .mapToInt(Integer::intValue)
                .toArray());
        now += SESSION_MS / 2 + 1;
        heartbeat(BROKERS.stream()
                .filter(id -> id != silent)
                .mapToInt(Integer::intValue)
                .toArray());
        controller.tick(now);
    }

    /**
     * Four brokers; "t" (40 partitions, 3 replicas each) and "solo" (8 partitions, 1 replica each), so every
     * broker leads partitions of both.
     */
    private void startCluster() {
        controller = activate(OLD_CONTROLLER, ClusterImage.EMPTY);
        registerAndUnfence(BROKERS);
        createTopic("t", 40, 3, Map.of("min.insync.replicas", "2"));
        createTopic("solo", 8, 1, Map.of());
    }

    /**
     * Runs {@code decision} on the old controller, then, for every cut of what it appended, fails over to a new
     * controller on the kept prefix and checks the cluster before and after the new controller activates.
     */
    private void failOverAtEveryCutOf(String what, Runnable decision) {
        List<List<MetadataRecord>> before = List.copyOf(log);
        decision.run();
        List<List<MetadataRecord>> written = List.copyOf(log.subList(before.size(), log.size()));
        assertThat(written).as("the entries %s wrote", what).isNotEmpty();
        for (int cut = 0; cut <= written.size(); cut++) {
            log.clear();
            log.addAll(before);
            log.addAll(written.subList(0, cut));
            String when = what + ", failover after " + cut + " of its " + written.size() + " entries";
            ClusterImage kept = replay(log.size());
            assertConsistent(kept, "every node's image " + when);

            QuorumController next = activate(NEW_CONTROLLER, kept);

            assertConsistent(next.projected(), "the new controller's image " + when);
            assertThat(replay(log.size()).image())
                    .as("what the new controller wrote, replayed (%s)", when)
                    .isEqualTo(next.projected().image());
        }
    }

    private void assertConsistent(ClusterImage image, String when) {
        Set<String> names =
                image.image().topics().values().stream().map(TopicImage::name).collect(Collectors.toSet());
        assertThat(created.keySet()).as("topics in %s", when).containsAll(names);
        for (TopicImage topic : image.image().topics().values()) {
            Map.Entry<Integer, Map<String, String>> request = created.get(topic.name());
            assertThat(topic.partitions().keySet())
                    .as("partitions of %s in %s", topic.name(), when)
                    .containsExactlyElementsOf(
                            IntStream.range(0, request.getKey()).boxed().toList());
            assertThat(topic.configs())
                    .as("configs of %s in %s", topic.name(), when)
                    .isEqualTo(new TreeMap<>(request.getValue()));
            for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                PartitionState state = e.getValue();
                String partition = topic.name() + "-" + e.getKey() + " " + state;
                if (state.leader() != -1) {
                    assertThat(image.isUnfenced(state.leader()))
                            .as("the leader of %s is a live node, in %s", partition, when)
                            .isTrue();
                }
                if (state.isr().stream().anyMatch(image::isUnfenced)) {
                    assertThat(state.isr())
                            .as("the ISR of %s holds only live nodes, in %s", partition, when)
                            .allMatch(image::isUnfenced);
                    assertThat(state.leader())
                            .as("%s, whose ISR holds a live node, has a leader, in %s", partition, when)
                            .isNotEqualTo(-1);
                }
            }
        }
    }

    // ---------------------------------------------------------------- (a) a decision is all or nothing

    @Test
    void aFencingOnSessionExpiryIsAllOrNothingAcrossAFailover() {
        startCluster();
        failOverAtEveryCutOf("fencing node 2", () -> expireSessionOf(2));
        assertThat(controller.projected().isUnfenced(2))
                .as("the decision itself fenced node 2")
                .isFalse();
    }

    @Test
    void aReRegistrationOfANewIncarnationIsAllOrNothingAcrossAFailover() {
        startCluster();
        failOverAtEveryCutOf(
                "the re-registration of node 1",
                () -> assertThat(call(new RegisterBroker(1, UUID.randomUUID(), "h", 9001))
                                .error())
                        .isEqualTo(Error.NONE));
        assertThat(controller.projected().isUnfenced(1))
                .as("the new incarnation starts fenced")
                .isFalse();
    }

    @Test
    void aControlledShutdownIsAllOrNothingAcrossAFailover() {
        startCluster();
        failOverAtEveryCutOf(
                "the controlled shutdown of node 3",
                () -> assertThat(call(new Heartbeat(3, epochs.get(3), Long.MAX_VALUE, true))
                                .flag())
                        .isTrue());
        assertThat(controller.projected().isUnfenced(3)).isFalse();
    }

    @Test
    void anUnfencingAndTheElectionsItAllowsAreAllOrNothingAcrossAFailover() {
        // Given: node 4 fenced; the single-replica partitions it held are leaderless, their ISR kept
        startCluster();
        expireSessionOf(4);
        assertThat(controller
                        .projected()
                        .topic("solo")
                        .orElseThrow()
                        .partitions()
                        .values())
                .anyMatch(s -> s.leader() == -1 && s.isr().equals(List.of(4)));

        // Then
        failOverAtEveryCutOf("unfencing node 4", () -> heartbeat(4));
        assertThat(controller.projected().isUnfenced(4)).isTrue();
    }

    @Test
    void aTopicCreationIsAllOrNothingAcrossAFailover() {
        startCluster();
        failOverAtEveryCutOf(
                "creating topic big (300 partitions, 2 configs)",
                () -> createTopic("big", 300, 3, Map.of("cleanup.policy", "compact", "retention.ms", "60000")));
        assertThat(controller.projected().topic("big")).isPresent();
    }

    // ---------------------------------------------------------------- (b) a new controller reconciles

    /**
     * An image no decision of this controller can leave, but a log written one record per entry (or an older
     * version) can: nodes 2 and 3 fenced by bare {@link FenceNode} entries while they still lead and sit in ISRs,
     * partitions led by node 7, which never registered (gone), and leaderless partitions whose ISR holds a live
     * node. A newly active controller repairs every one of them before it does anything else.
     */
    @Test
    void aNewControllerReconcilesEveryPartitionWhoseLeaderIsFencedOrGone() {
        // Given
        List<MetadataRecord> records = new ArrayList<>();
        for (int id : BROKERS) {
            records.add(new RegisterNode(id, new UUID(1, id), "h", 9000 + id, ""));
        }
        for (int id : BROKERS) {
            records.add(new UnfenceNode(id, id - 1)); // a node's epoch is the offset of its registration
        }
        UUID topicId = new UUID(2, 1);
        records.add(new MetadataRecord.CreateTopic("t", topicId));
        List<List<Integer>> shapes = List.of(
                List.of(2, 1, 4), // led by fenced node 2
                List.of(3, 2), // led by fenced 3, the other member fenced too: leaderless, ISR kept
                List.of(7, 1, 2), // led by node 7, never registered
                List.of(7), // only node 7: leaderless
                List.of(1, 2, 3), // live leader, fenced followers in the ISR
                List.of(4, 1), // healthy
                List.of(1, 4)); // made leaderless below, its ISR live
        int partitions = 28;
        for (int p = 0; p < partitions; p++) {
            List<Integer> replicas = shapes.get(p % shapes.size());
            records.add(new PartitionChange(topicId, p, replicas, replicas, replicas.get(0), 3));
        }
        for (int p = shapes.size() - 1; p < partitions; p += shapes.size()) {
            // leaderless partitions whose ISR holds a live node (an unfencing whose elections were cut off)
            records.add(new PartitionChange(topicId, p, List.of(1, 4), List.of(1, 4), -1, 4));
        }
        records.add(new FenceNode(2, 1));
        records.add(new FenceNode(3, 2));
        for (MetadataRecord record : records) {
            log.add(List.of(record));
        }
        created.put("t", Map.entry(partitions, Map.of()));
        ClusterImage image = replay(log.size());
        assertThat(image.image().topics().get(topicId).partitions().values())
                .anyMatch(s -> s.leader() == 2)
                .anyMatch(s -> s.leader() == 3)
                .anyMatch(s -> s.leader() == 7)
                .anyMatch(s -> s.leader() == -1 && s.isr().contains(4));

        // When
        now += 100;
        controller = activate(NEW_CONTROLLER, image);

        // Then
        ClusterImage repaired = controller.projected();
        assertConsistent(repaired, "the image of a newly active controller");
        assertThat(replay(log.size()).image()).as("the repair is in the log").isEqualTo(repaired.image());
        Map<Integer, PartitionState> before =
                image.image().topics().get(topicId).partitions();
        for (Map.Entry<Integer, PartitionState> e :
                repaired.image().topics().get(topicId).partitions().entrySet()) {
            PartitionState was = before.get(e.getKey());
            PartitionState is = e.getValue();
            if (is.leader() != was.leader()) {
                assertThat(is.leaderEpoch())
                        .as("t-%d changed leader in a new epoch", e.getKey())
                        .isEqualTo(was.leaderEpoch() + 1);
            }
            if (is.leader() == -1) {
                assertThat(is.isr())
                        .as("t-%d has no live ISR member: it keeps its ISR", e.getKey())
                        .isEqualTo(was.isr());
            } else {
                assertThat(was.isr())
                        .as("t-%d is led by a member of its old ISR", e.getKey())
                        .contains(is.leader());
            }
        }
    }
}
