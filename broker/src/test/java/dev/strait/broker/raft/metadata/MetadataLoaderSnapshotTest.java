package dev.strait.broker.raft.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.RaftConfig;
import dev.strait.broker.raft.RaftMessage;
import dev.strait.broker.raft.RaftNode;
import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader takes metadata snapshots when the node says they are due, and rebuilds the same image from the
 * latest snapshot plus the log suffix: after a restart, and on a follower that downloaded the snapshot.
 */
class MetadataLoaderSnapshotTest {

    private static final UUID ORDERS = new UUID(3, 3);
    /** A snapshot every 2 KB of records; 60-byte ISR flaps, so one every few dozen changes. */
    private static final RaftConfig CONFIG =
            RaftConfig.defaults().withSnapshots(2_048, 0).withTransfer(512, 1_000);

    @TempDir
    Path leaderDir;

    @TempDir
    Path followerDir;

    private final Deque<RaftMessage> network = new ArrayDeque<>();
    private final Map<Integer, RaftNode> nodes = new TreeMap<>();
    private long now;

    private static byte[] batch(MetadataRecord... records) {
        return MetadataRecordSerde.serializeBatch(List.of(records));
    }

    private void deliverAll() {
        for (int i = 0; i < 10_000 && !network.isEmpty(); i++) {
            RaftMessage message = network.poll();
            RaftNode to = nodes.get(message.destination());
            if (to != null) {
                to.handle(message, now);
            }
        }
    }

    private static void tickUntilLeader(RaftNode node, long[] clock) {
        for (int i = 0; i < 5 && !node.isLeader(); i++) {
            clock[0] = Math.max(clock[0], node.nextDeadlineMs());
            node.tick(clock[0]);
        }
        assertThat(node.isLeader()).isTrue();
    }

    /** Registers two brokers, creates a topic, then flaps the ISR of its partition {@code flaps} times. */
    private static void writeHistory(RaftNode leader, MetadataLoader loader, long nowMs, int flaps, Runnable deliver) {
        leader.propose(
                batch(
                        new RegisterNode(1, new UUID(1, 1), "h1", 9092, ""),
                        new RegisterNode(2, new UUID(2, 2), "h2", 9092, "")),
                nowMs);
        leader.propose(
                batch(
                        new UnfenceNode(1, 1),
                        new CreateTopic("orders", ORDERS),
                        new PartitionChange(ORDERS, 0, List.of(1, 2), List.of(1, 2), 1, 0)),
                nowMs);
        for (int i = 0; i < flaps; i++) {
            leader.propose(
                    batch(new PartitionChange(ORDERS, 0, List.of(1, 2), i % 2 == 0 ? List.of(1) : List.of(1, 2), 1, 0)),
                    nowMs);
            deliver.run();
            loader.maybeSnapshot(nowMs);
        }
    }

    @Test
    void aRestartedNodeRebuildsTheSameImageFromItsSnapshotAndTheSuffix() throws IOException {
        // Given: a sole voter that went through 200 ISR flaps, snapshotting as it went
        long[] clock = {0};
        MetadataImage before;
        long snapshots;
        try (FileRaftStorage storage = FileRaftStorage.open(leaderDir)) {
            RaftNode node = new RaftNode(1, List.of(1), CONFIG, storage, network::add, new Random(1), 0);
            tickUntilLeader(node, clock);
            MetadataLoader loader = new MetadataLoader(node);
            writeHistory(node, loader, clock[0], 200, () -> {});
            before = loader.poll();
            snapshots = storage.latestSnapshot().orElseThrow().endOffset();
            assertThat(node.logStartOffset()).isPositive();
            assertThat(node.endOffset() - node.logStartOffset())
                    .as("entries kept in memory")
                    .isLessThan(60);
            node.tick(clock[0] + 2_000); // checkpoints the high watermark
        }
        // When
        try (FileRaftStorage storage = FileRaftStorage.open(leaderDir)) {
            RaftNode restarted = new RaftNode(1, List.of(1), CONFIG, storage, network::add, new Random(2), 0);
            MetadataLoader loader = new MetadataLoader(restarted);
            MetadataImage after = loader.poll();
            // Then: the whole image, before this node even leads again
            assertThat(restarted.isLeader()).isFalse();
            assertThat(loader.snapshotsLoaded()).isEqualTo(1);
            assertThat(after).isEqualTo(before);
            assertThat(after.partitionEpoch(ORDERS, 0)).isEqualTo(200);
            assertThat(snapshots).isPositive();
        }
    }

    @Test
    void aNewObserverDownloadsTheSnapshotAndBuildsTheLeadersImage() throws IOException {
        // Given: a two-voter quorum that went through 100 ISR flaps, both voters snapshotting as they went
        List<Integer> voters = List.of(1, 2);
        try (FileRaftStorage leaderStorage = FileRaftStorage.open(leaderDir);
                FileRaftStorage followerStorage = FileRaftStorage.open(followerDir.resolve("voter"));
                FileRaftStorage observerStorage = FileRaftStorage.open(followerDir.resolve("observer"))) {
            RaftNode leader = new RaftNode(1, voters, CONFIG, leaderStorage, network::add, new Random(1), 0);
            RaftNode follower = new RaftNode(2, voters, CONFIG, followerStorage, network::add, new Random(2), 0);
            nodes.put(1, leader);
            nodes.put(2, follower);
            now = 10_000;
            leader.tick(now);
            deliverAll();
            assertThat(leader.isLeader()).isTrue();
            MetadataLoader leaderLoader = new MetadataLoader(leader);
            MetadataLoader followerLoader = new MetadataLoader(follower);
            writeHistory(leader, leaderLoader, now, 100, () -> {
                deliverAll();
                now += CONFIG.fetchBackoffMs();
                follower.tick(now);
                deliverAll();
                followerLoader.maybeSnapshot(now);
            });
            assertThat(leader.logStartOffset()).isPositive();
            assertThat(follower.logStartOffset()).isPositive();
            // When: an observer (a broker-only node) joins with an empty metadata log
            RaftNode observer = new RaftNode(3, voters, CONFIG, observerStorage, network::add, new Random(3), now);
            nodes.put(3, observer);
            MetadataLoader observerLoader = new MetadataLoader(observer);
            for (int round = 0; round < 50 && observer.highWatermark() < leader.highWatermark(); round++) {
                now += 100;
                observer.tick(now);
                leader.tick(now);
                deliverAll();
            }
            // Then: it fetched the leader's snapshot and the log after it, and built the leader's image
            assertThat(observer.latestSnapshot()).isEqualTo(leader.latestSnapshot());
            assertThat(observerLoader.poll()).isEqualTo(leaderLoader.poll());
            assertThat(observerLoader.snapshotsLoaded()).isEqualTo(1);
            assertThat(followerLoader.poll()).isEqualTo(leaderLoader.poll());
            assertThat(leaderLoader.image().partitionEpoch(ORDERS, 0)).isEqualTo(100);
        }
    }
}
