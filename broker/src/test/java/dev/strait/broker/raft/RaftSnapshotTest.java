package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * Snapshots on hand-built nodes, every message delivered by hand: the leader's KIP-630 checks on a fetch, the
 * FetchSnapshot exchange chunk by chunk and its error answers, the follower's handling of late, corrupt and
 * vanished chunks, the snapshot triggers, and the durable high watermark.
 */
class RaftSnapshotTest {

    private static final RaftConfig CONFIG = RaftConfig.defaults().withTransfer(7, 50);
    private static final byte[] CONTENT =
            "the state machine as of offset six, in some forty bytes".getBytes(StandardCharsets.UTF_8);

    private final Deque<RaftMessage> network = new ArrayDeque<>();
    private final List<RaftMessage> delivered = new ArrayList<>();
    private final Map<Integer, RaftNode> nodes = new TreeMap<>();

    private static LogEntry data(int epoch, long offset) {
        return new LogEntry(epoch, offset, LogEntry.Kind.DATA, new byte[] {(byte) epoch, (byte) offset});
    }

    /** Entries 0..9 in epochs 1,1,2,2,2,2,3,3,3,3, all committed, with a snapshot of 0..5 (ending in epoch 2). */
    private static SimDisk diskWithSnapshot() {
        SimDisk disk = new SimDisk(false);
        int[] epochs = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
        for (int offset = 0; offset < epochs.length; offset++) {
            disk.append(data(epochs[offset], offset));
        }
        disk.flush();
        disk.writeHighWatermark(10);
        disk.installSnapshot(new OffsetAndEpoch(6, 2), CONTENT);
        return disk;
    }

    private RaftNode start(int id, List<Integer> voters, SimDisk disk, RaftConfig config) {
        RaftNode node = new RaftNode(id, voters, config, disk, network::add, new Random(id), 0);
        nodes.put(id, node);
        return node;
    }

    /** Node 1, alone a quorum, leading epoch 4 over {@link #diskWithSnapshot()} (its leader change is entry 10). */
    private RaftNode soleLeader() {
        SimDisk disk = diskWithSnapshot();
        disk.writeElectionState(new ElectionState(3, -1, -1));
        RaftNode leader = start(1, List.of(1), disk, CONFIG);
        tickUntilLeader(leader);
        assertThat(leader.epoch()).isEqualTo(4);
        network.clear();
        return leader;
    }

    private static void tickUntilLeader(RaftNode node) {
        for (int i = 0; i < 5 && !node.isLeader(); i++) {
            node.tick(node.nextDeadlineMs());
        }
        assertThat(node.isLeader()).isTrue();
    }

    private void deliverAll(long nowMs) {
        for (int i = 0; i < 200 && !network.isEmpty(); i++) {
            RaftMessage message = network.poll();
            delivered.add(message);
            nodes.get(message.destination()).handle(message, nowMs);
        }
        assertThat(network).as("messages still in flight").isEmpty();
    }

    private FetchResponse fetch(RaftNode leader, long fetchOffset, int lastFetchedEpoch) {
        leader.handle(new FetchRequest(9, 1, leader.epoch(), fetchOffset, lastFetchedEpoch), 1);
        return (FetchResponse) network.poll();
    }

    @Test
    void leaderPointsAFetchItCannotValidateFromItsLogAtItsSnapshot() {
        // Given: the log starts at 6 (the snapshot ends with an entry of epoch 2); entries 6..9 are epoch 3
        RaftNode leader = soleLeader();
        OffsetAndEpoch snapshot = new OffsetAndEpoch(6, 2);
        // When / Then: below the log start, at the start in another epoch, in an epoch older than the snapshot's
        assertThat(fetch(leader, 0, 0).snapshotId()).isEqualTo(snapshot);
        assertThat(fetch(leader, 3, 1).snapshotId()).isEqualTo(snapshot);
        assertThat(fetch(leader, 6, 1).snapshotId()).isEqualTo(snapshot);
        assertThat(fetch(leader, 8, 1).snapshotId()).isEqualTo(snapshot);
        // a position the log can check is served or told where it diverges, as without snapshots
        FetchResponse atStart = fetch(leader, 6, 2);
        assertThat(atStart.snapshotId()).isNull();
        assertThat(atStart.entries()).extracting(LogEntry::offset).containsExactly(6L, 7L, 8L, 9L, 10L);
        FetchResponse diverged = fetch(leader, 8, 2);
        assertThat(diverged.snapshotId()).isNull();
        assertThat(diverged.divergingEpoch()).isEqualTo(new OffsetAndEpoch(6, 2));
        assertThat(fetch(leader, 11, 4).entries()).isEmpty();
    }

    @Test
    void aFollowerWithAnEmptyLogDownloadsTheSnapshotInChunksThenFetchesTheLog() {
        // Given: a two-voter quorum; node 2 has nothing, node 1 has a snapshot of 0..5 and entries 6..9
        List<Integer> voters = List.of(1, 2);
        SimDisk leaderDisk = diskWithSnapshot();
        leaderDisk.writeElectionState(new ElectionState(3, -1, -1));
        RaftNode leader = start(1, voters, leaderDisk, CONFIG);
        RaftNode follower = start(2, voters, new SimDisk(false), CONFIG);
        network.clear();
        // When: node 1 stands for election and every message is delivered
        leader.tick(10_000);
        deliverAll(10_000);
        // Then: 7-byte chunks, in order, and the follower holds the snapshot, then the log after it
        assertThat(leader.isLeader()).isTrue();
        List<Long> positions = delivered.stream()
                .filter(FetchSnapshotRequest.class::isInstance)
                .map(m -> ((FetchSnapshotRequest) m).position())
                .toList();
        assertThat(positions).hasSize((CONTENT.length + 6) / 7).startsWith(0L, 7L, 14L);
        assertThat(follower.latestSnapshot()).map(SnapshotInfo::id).contains(new OffsetAndEpoch(6, 2));
        assertThat(follower.readLatestSnapshot()).isEqualTo(CONTENT);
        assertThat(follower.logStartOffset()).isEqualTo(6);
        assertThat(follower.endOffset()).isEqualTo(leader.endOffset()).isEqualTo(11);
        for (long offset = 6; offset < 11; offset++) {
            assertThat(follower.entry(offset)).isEqualTo(leader.entry(offset));
        }
        assertThat(leader.highWatermark()).isEqualTo(11);
        assertThat(follower.highWatermark()).isEqualTo(11);
    }

    @Test
    void fetchSnapshotAnswersErrorsForAnUnknownSnapshotABadPositionAndAStaleEpoch() {
        // Given
        RaftNode leader = soleLeader();
        OffsetAndEpoch id = new OffsetAndEpoch(6, 2);
        // When
        leader.handle(new FetchSnapshotRequest(9, 1, 4, new OffsetAndEpoch(5, 2), 0, 100), 1);
        leader.handle(new FetchSnapshotRequest(9, 1, 4, id, CONTENT.length, 100), 1);
        leader.handle(new FetchSnapshotRequest(9, 1, 4, id, -1, 100), 1);
        leader.handle(new FetchSnapshotRequest(9, 1, 3, id, 0, 100), 1);
        leader.handle(new FetchSnapshotRequest(9, 1, 4, id, 50, 100), 1);
        // Then
        List<FetchSnapshotResponse> answers =
                network.stream().map(m -> (FetchSnapshotResponse) m).toList();
        assertThat(answers)
                .extracting(FetchSnapshotResponse::error)
                .containsExactly(
                        FetchError.SNAPSHOT_NOT_FOUND,
                        FetchError.POSITION_OUT_OF_RANGE,
                        FetchError.POSITION_OUT_OF_RANGE,
                        FetchError.FENCED_EPOCH,
                        FetchError.NONE);
        FetchSnapshotResponse tail = answers.get(4);
        assertThat(tail.bytes()).isEqualTo(Arrays.copyOfRange(CONTENT, 50, CONTENT.length));
        assertThat(tail.size()).isEqualTo(CONTENT.length);
        assertThat(tail.crc32c()).isEqualTo(crc(CONTENT));
        assertThat(answers.get(3).leaderId()).isEqualTo(1);
    }

    @Test
    void aNonLeaderRefusesFetchSnapshot() {
        // Given: node 2 follows node 1
        SimDisk disk = diskWithSnapshot();
        disk.writeElectionState(new ElectionState(4, -1, 1));
        RaftNode follower = start(2, List.of(1, 2), disk, CONFIG);
        network.clear();
        // When
        follower.handle(new FetchSnapshotRequest(3, 2, 4, new OffsetAndEpoch(6, 2), 0, 100), 1);
        // Then
        FetchSnapshotResponse answer = (FetchSnapshotResponse) network.poll();
        assertThat(answer.error()).isEqualTo(FetchError.NOT_LEADER);
        assertThat(answer.leaderId()).isEqualTo(1);
    }

    /** Node 2 follows node 1 in epoch 4 with an empty log and has been told to fetch snapshot (6, 2). */
    private RaftNode downloadingFollower() {
        SimDisk disk = new SimDisk(false);
        disk.writeElectionState(new ElectionState(4, -1, 1));
        RaftNode follower = start(2, List.of(1, 2), disk, CONFIG);
        follower.tick(0);
        assertThat(network.poll()).isEqualTo(new FetchRequest(2, 1, 4, 0, 0));
        follower.handle(
                new FetchResponse(1, 2, 4, FetchError.NONE, 1, 0, 0, null, List.of(), 10, new OffsetAndEpoch(6, 2)), 1);
        assertThat(network.poll()).isEqualTo(new FetchSnapshotRequest(2, 1, 4, new OffsetAndEpoch(6, 2), 0, 7));
        return follower;
    }

    private static FetchSnapshotResponse chunk(long position, byte[] content, int crc) {
        byte[] bytes = Arrays.copyOfRange(content, (int) position, (int) Math.min(content.length, position + 7));
        return new FetchSnapshotResponse(
                1, 2, 4, FetchError.NONE, 1, new OffsetAndEpoch(6, 2), content.length, crc, position, bytes);
    }

    @Test
    void lateAndRepeatedChunksAreIgnored() {
        // Given
        RaftNode follower = downloadingFollower();
        follower.handle(chunk(0, CONTENT, crc(CONTENT)), 2);
        assertThat(((FetchSnapshotRequest) network.poll()).position()).isEqualTo(7);
        // When: the first chunk arrives again, and a chunk for a position nobody asked for
        follower.handle(chunk(0, CONTENT, crc(CONTENT)), 3);
        follower.handle(chunk(21, CONTENT, crc(CONTENT)), 3);
        // Then: no new request; the download goes on from 7
        assertThat(network).isEmpty();
        follower.handle(chunk(7, CONTENT, crc(CONTENT)), 4);
        assertThat(((FetchSnapshotRequest) network.poll()).position()).isEqualTo(14);
    }

    @Test
    void aSnapshotWhoseContentFailsItsChecksumIsDownloadedAgainAndNeverInstalled() {
        // Given: one byte flipped in flight in the third chunk
        RaftNode follower = downloadingFollower();
        byte[] corrupt = CONTENT.clone();
        corrupt[15] ^= 0x20;
        // When
        long position = 0;
        while (position < CONTENT.length) {
            follower.handle(chunk(position, position == 14 ? corrupt : CONTENT, crc(CONTENT)), 2);
            position = ((FetchSnapshotRequest) network.poll()).position();
            if (position == 0) {
                break;
            }
        }
        // Then: it starts over from byte 0, with nothing installed
        assertThat(position).isZero();
        assertThat(follower.latestSnapshot()).isEmpty();
        assertThat(follower.logStartOffset()).isZero();
        // and a clean download installs it
        for (long at = 0; at < CONTENT.length; at += 7) {
            follower.handle(chunk(at, CONTENT, crc(CONTENT)), 3);
            network.poll();
        }
        assertThat(follower.readLatestSnapshot()).isEqualTo(CONTENT);
        assertThat(follower.logStartOffset()).isEqualTo(6);
        assertThat(follower.highWatermark()).isEqualTo(6);
    }

    @Test
    void aSnapshotTheLeaderNoLongerHasSendsTheFollowerBackToFetch() {
        // Given
        RaftNode follower = downloadingFollower();
        // When: the leader took a newer snapshot and deleted this one
        follower.handle(
                new FetchSnapshotResponse(
                        1, 2, 4, FetchError.SNAPSHOT_NOT_FOUND, 1, new OffsetAndEpoch(6, 2), 0, 0, 0, new byte[0]),
                2);
        // Then: after its backoff it fetches the log again, which names the newer snapshot
        assertThat(network).isEmpty();
        follower.tick(follower.nextDeadlineMs());
        assertThat(network.poll()).isEqualTo(new FetchRequest(2, 1, 4, 0, 0));
    }

    @Test
    void aStalledDownloadIsResumedFromWhereItStopped() {
        // Given
        RaftNode follower = downloadingFollower();
        follower.handle(chunk(0, CONTENT, crc(CONTENT)), 2);
        network.clear(); // the request for position 7 is lost
        // When
        follower.tick(follower.nextDeadlineMs());
        // Then
        assertThat(network.poll()).isEqualTo(new FetchSnapshotRequest(2, 1, 4, new OffsetAndEpoch(6, 2), 7, 7));
    }

    @Test
    void snapshotsAreDueByCommittedBytesAndByAgeAndOnlyOfCommittedEntries() {
        // Given: a sole voter; every proposal carries 10 bytes; a snapshot due every 25 bytes or 1000 ms
        RaftConfig config = RaftConfig.defaults().withSnapshots(25, 1_000);
        RaftNode node = start(1, List.of(1), new SimDisk(false), config);
        tickUntilLeader(node);
        long now = node.nextDeadlineMs();
        assertThat(node.snapshotDue(now)).as("nothing committed yet").isFalse();
        // When / Then
        node.propose(new byte[10], now);
        node.propose(new byte[10], now);
        assertThat(node.snapshotDue(now)).isFalse();
        node.propose(new byte[10], now);
        assertThat(node.snapshotDue(now)).as("30 bytes committed").isTrue();
        SnapshotInfo taken = node.createSnapshot(node.highWatermark(), CONTENT, now);
        assertThat(taken.id()).isEqualTo(new OffsetAndEpoch(4, node.epoch()));
        assertThat(node.logStartOffset()).isEqualTo(4);
        assertThat(node.snapshotDue(now)).isFalse();
        node.propose(new byte[1], now);
        assertThat(node.snapshotDue(now + 999)).isFalse();
        assertThat(node.snapshotDue(now + 1_000))
                .as("one byte, but the snapshot is a second old")
                .isTrue();
        long hw = node.highWatermark();
        assertThatThrownBy(() -> node.createSnapshot(hw + 1, CONTENT, now))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most the high watermark");
        assertThatThrownBy(() -> node.createSnapshot(4, CONTENT, now)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRestartedNodeKnowsItsCheckpointedHighWatermarkBeforeHearingFromALeader() {
        // Given: a follower that learned hw 8 and checkpointed it
        SimDisk disk = new SimDisk(false);
        disk.writeElectionState(new ElectionState(3, -1, 1));
        RaftNode follower = start(2, List.of(1, 2), disk, CONFIG);
        follower.tick(0);
        network.clear();
        List<LogEntry> entries = new ArrayList<>();
        for (int offset = 0; offset < 10; offset++) {
            entries.add(data(3, offset));
        }
        follower.handle(new FetchResponse(1, 2, 3, FetchError.NONE, 1, 0, 0, null, entries, 8), 10);
        assertThat(follower.highWatermark()).isEqualTo(8);
        follower.tick(follower.nextDeadlineMs());
        // When: its process restarts (the checkpoint is not fsynced, but the OS still has it)
        RaftNode restarted = start(2, List.of(1, 2), disk, CONFIG);
        // Then
        assertThat(disk.highWatermark()).isEqualTo(8);
        assertThat(restarted.highWatermark()).isEqualTo(8);
    }

    @Test
    void aCheckpointedHighWatermarkBeyondTheLogMeansTheDiskLostFlushedEntries() {
        SimDisk disk = new SimDisk(false);
        disk.append(data(1, 0));
        disk.flush();
        disk.writeHighWatermark(5);
        assertThatThrownBy(() -> start(1, List.of(1), disk, CONFIG))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("refusing to start");
    }

    private static int crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length);
        return (int) crc.getValue();
    }
}
