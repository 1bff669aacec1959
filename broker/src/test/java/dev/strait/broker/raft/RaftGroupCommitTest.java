package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.RaftMessage.FetchResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The two additions the controller's batching needs (issue 11): several proposals appended with one flush, and
 * fetch answers bounded in bytes as well as in entries, so that large entries (a topic of thousands of
 * partitions is one entry) never make a frame the transport refuses.
 */
class RaftGroupCommitTest {

    private final Deque<RaftMessage> network = new ArrayDeque<>();
    private final List<RaftMessage> delivered = new ArrayList<>();
    private final Map<Integer, RaftNode> nodes = new TreeMap<>();
    private final Map<Integer, CountingDisk> disks = new TreeMap<>();

    /** A {@link SimDisk} that counts its flushes. */
    private static final class CountingDisk implements RaftStorage {
        final SimDisk disk = new SimDisk(false);
        int flushes;

        @Override
        public ElectionState electionState() {
            return disk.electionState();
        }

        @Override
        public void writeElectionState(ElectionState state) {
            disk.writeElectionState(state);
        }

        @Override
        public long endOffset() {
            return disk.endOffset();
        }

        @Override
        public LogEntry entry(long offset) {
            return disk.entry(offset);
        }

        @Override
        public void append(LogEntry entry) {
            disk.append(entry);
        }

        @Override
        public void truncateTo(long endOffset) {
            disk.truncateTo(endOffset);
        }

        @Override
        public void flush() {
            flushes++;
            disk.flush();
        }

        @Override
        public long startOffset() {
            return disk.startOffset();
        }

        @Override
        public java.util.Optional<SnapshotInfo> latestSnapshot() {
            return disk.latestSnapshot();
        }

        @Override
        public java.util.Optional<byte[]> readSnapshot(OffsetAndEpoch id, long position, int maxBytes) {
            return disk.readSnapshot(id, position, maxBytes);
        }

        @Override
        public void installSnapshot(OffsetAndEpoch id, byte[] content) {
            disk.installSnapshot(id, content);
        }

        @Override
        public long highWatermark() {
            return disk.highWatermark();
        }

        @Override
        public void writeHighWatermark(long highWatermark) {
            disk.writeHighWatermark(highWatermark);
        }
    }

    private RaftNode node(int id, List<Integer> voters) {
        CountingDisk disk = new CountingDisk();
        disks.put(id, disk);
        RaftNode node = new RaftNode(id, voters, RaftConfig.defaults(), disk, network::add, new Random(id), 0);
        nodes.put(id, node);
        return node;
    }

    private void deliverAll(long nowMs) {
        for (int i = 0; i < 1_000 && !network.isEmpty(); i++) {
            RaftMessage message = network.poll();
            delivered.add(message);
            nodes.get(message.destination()).handle(message, nowMs);
        }
    }

    private static RaftNode electAlone(RaftNode node) {
        for (long now = 10_000; !node.isLeader() && now < 100_000; now += 1_000) {
            node.tick(now);
        }
        assertThat(node.isLeader()).isTrue();
        return node;
    }

    @Test
    void severalProposalsAreAppendedInOrderWithOneFlush() {
        // Given
        RaftNode leader = electAlone(node(1, List.of(1)));
        long end = leader.endOffset();
        int flushes = disks.get(1).flushes;

        // When
        List<CompletableFuture<Long>> committed =
                leader.propose(List.of(new byte[] {1}, new byte[] {2}, new byte[] {3}), 20_000);

        // Then
        assertThat(disks.get(1).flushes).isEqualTo(flushes + 1);
        assertThat(committed).hasSize(3);
        for (int i = 0; i < 3; i++) {
            assertThat(committed.get(i)).isCompletedWithValue(end + i);
            assertThat(leader.entry(end + i).payload()).containsExactly((byte) (i + 1));
        }
        assertThat(leader.highWatermark()).isEqualTo(end + 3);
    }

    @Test
    void aFetchAnswerStopsAddingLargeEntriesPastFourMebibytes() {
        // Given: node 1 leads nodes 1 and 2 and holds three entries of 3 MiB
        RaftNode leader = node(1, List.of(1, 2));
        RaftNode follower = node(2, List.of(1, 2));
        for (long now = 10_000; !leader.isLeader() && now < 100_000; now += 500) {
            leader.tick(now);
            deliverAll(now);
        }
        assertThat(leader.isLeader()).isTrue();
        List<byte[]> big = List.of(new byte[3 << 20], new byte[3 << 20], new byte[3 << 20]);
        leader.propose(big, 20_000);

        // When: the follower fetches until it has caught up
        for (long now = 20_000; follower.endOffset() < leader.endOffset() && now < 60_000; now += 100) {
            follower.tick(now);
            leader.tick(now);
            deliverAll(now);
        }

        // Then
        assertThat(follower.endOffset()).isEqualTo(leader.endOffset());
        assertThat(delivered)
                .filteredOn(FetchResponse.class::isInstance)
                .map(m -> (FetchResponse) m)
                .allSatisfy(r -> assertThat(r.entries().stream()
                                .mapToLong(LogEntry::payloadSize)
                                .sum())
                        .isLessThanOrEqualTo(6L << 20));
    }
}
