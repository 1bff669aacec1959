package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link RaftNode#onPeerUnreachable}: when the transport shows the leader's process gone, the followers elect a
 * successor within the election jitter instead of after the election timeout; when the evidence is false (the
 * leader lives and the others hear from it), nothing changes. Three voters, messages delivered by hand, time
 * driven by hand.
 */
class RaftLeaderUnreachableTest {

    private static final RaftConfig CONFIG = RaftConfig.defaults();

    private final Deque<RaftMessage> network = new ArrayDeque<>();
    private final Map<Integer, RaftNode> nodes = new TreeMap<>();
    private final Set<Integer> dead = ConcurrentHashMap.newKeySet();
    private long now = 10_000;

    private void start() {
        for (int id = 1; id <= 3; id++) {
            nodes.put(
                    id,
                    new RaftNode(id, List.of(1, 2, 3), CONFIG, new SimDisk(false), network::add, new Random(id), now));
        }
    }

    /** Delivers what is in flight (not to or from dead nodes) and ticks everyone, for {@code ms} in 10 ms steps. */
    private void run(long ms) {
        for (long end = now + ms; now < end; now += 10) {
            for (int i = 0; i < 1_000 && !network.isEmpty(); i++) {
                RaftMessage message = network.poll();
                if (!dead.contains(message.source()) && !dead.contains(message.destination())) {
                    nodes.get(message.destination()).handle(message, now);
                }
            }
            for (Map.Entry<Integer, RaftNode> e : nodes.entrySet()) {
                if (!dead.contains(e.getKey())) {
                    e.getValue().tick(now);
                }
            }
        }
    }

    private int leader() {
        return nodes.values().stream()
                .filter(n -> !dead.contains(n.nodeId()) && n.isLeader())
                .mapToInt(RaftNode::nodeId)
                .findFirst()
                .orElse(-1);
    }

    @Test
    void followersThatSeeTheLeaderGoElectASuccessorWellWithinTheElectionTimeout() {
        // Given
        start();
        run(5_000);
        int old = leader();
        assertThat(old).isPositive();
        int oldEpoch = nodes.get(old).epoch();

        // When: its process dies, and both followers' transports see it
        dead.add(old);
        for (RaftNode node : nodes.values()) {
            if (node.nodeId() != old) {
                node.onPeerUnreachable(old, now);
            }
        }
        run(CONFIG.electionJitterMs() / 2 + 100);

        // Then: a new leader, sooner than the election timeout alone would allow
        assertThat(CONFIG.electionJitterMs() / 2 + 100).isLessThan(CONFIG.electionTimeoutMs());
        int next = leader();
        assertThat(next).isPositive().isNotEqualTo(old);
        assertThat(nodes.get(next).epoch()).isGreaterThan(oldEpoch);
    }

    @Test
    void falseEvidenceAtOneFollowerDoesNotDeposeALiveLeader() {
        // Given
        start();
        run(5_000);
        int leader = leader();
        int epoch = nodes.get(leader).epoch();
        int follower = leader % 3 + 1;

        // When: one follower wrongly believes the leader gone
        nodes.get(follower).onPeerUnreachable(leader, now);
        run(3_000);

        // Then
        assertThat(leader()).isEqualTo(leader);
        assertThat(nodes.get(leader).epoch()).isEqualTo(epoch);
    }
}
