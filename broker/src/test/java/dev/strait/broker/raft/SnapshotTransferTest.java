package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import dev.strait.broker.raft.SnapshotTransfer.ChunkOutcome;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Both ends of FetchSnapshot without a {@link RaftNode} around them: node 1 leads epoch 4 with a snapshot of
 * 0..5, node 2 follows it; every message is handed across by the test.
 */
class SnapshotTransferTest {

    private static final RaftConfig CONFIG = RaftConfig.defaults().withTransfer(7, 50);
    private static final byte[] CONTENT =
            "the state machine as of offset six, in some forty bytes".getBytes(StandardCharsets.UTF_8);
    private static final OffsetAndEpoch SNAPSHOT = new OffsetAndEpoch(6, 2);

    private final Deque<RaftMessage> toFollower = new ArrayDeque<>();
    private final Deque<RaftMessage> toLeader = new ArrayDeque<>();
    private final Leader leaderRole = new Leader(4, new LeaderProgress(1, List.of(1, 2), 0));
    private final Follower followerRole = new Follower(4, 1);

    /** Entries 0..9 in epochs 1,1,2,2,2,2,3,3,3,3 with a snapshot of 0..5 (ending in epoch 2). */
    private static SimDisk diskWithSnapshot() {
        SimDisk disk = new SimDisk(false);
        int[] epochs = {1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
        for (int offset = 0; offset < epochs.length; offset++) {
            disk.append(new LogEntry(epochs[offset], offset, LogEntry.Kind.DATA, new byte[] {(byte) offset}));
        }
        disk.flush();
        disk.installSnapshot(SNAPSHOT, CONTENT);
        return disk;
    }

    private SnapshotTransfer leaderSide(SimDisk disk) {
        return new SnapshotTransfer(1, CONFIG, disk, toFollower::add, EpochIndex.rebuild(disk), "[1] ");
    }

    private SnapshotTransfer followerSide(SimDisk disk) {
        return new SnapshotTransfer(2, CONFIG, disk, toLeader::add, EpochIndex.rebuild(disk), "[2] ");
    }

    private FetchSnapshotResponse ask(SnapshotTransfer leader, RaftRole role, OffsetAndEpoch id, long position) {
        leader.serve(new FetchSnapshotRequest(2, 1, 4, id, position, 7), role, 1, 1_000);
        return (FetchSnapshotResponse) toFollower.poll();
    }

    @Test
    void aFetchMustGoThroughTheSnapshotWhereTheLogCannotCheckItsPosition() {
        assertThat(SnapshotTransfer.mustFetchSnapshot(new FetchRequest(2, 1, 4, 0, 0), SNAPSHOT))
                .as("below the log start")
                .isTrue();
        assertThat(SnapshotTransfer.mustFetchSnapshot(new FetchRequest(2, 1, 4, 6, 1), SNAPSHOT))
                .as("at the log start in another epoch")
                .isTrue();
        assertThat(SnapshotTransfer.mustFetchSnapshot(new FetchRequest(2, 1, 4, 8, 1), SNAPSHOT))
                .as("beyond the start, but in an epoch older than the snapshot's")
                .isTrue();
        assertThat(SnapshotTransfer.mustFetchSnapshot(new FetchRequest(2, 1, 4, 6, 2), SNAPSHOT))
                .as("at the log start in the snapshot's epoch")
                .isFalse();
        assertThat(SnapshotTransfer.mustFetchSnapshot(new FetchRequest(2, 1, 4, 8, 3), SNAPSHOT))
                .as("beyond the start in a later epoch")
                .isFalse();
        assertThat(leaderSide(diskWithSnapshot()).snapshotToFetchInstead(new FetchRequest(2, 1, 4, 0, 0)))
                .contains(SNAPSHOT);
        assertThat(leaderSide(new SimDisk(false)).snapshotToFetchInstead(new FetchRequest(2, 1, 4, 0, 0)))
                .as("without a snapshot the log serves every fetch")
                .isEmpty();
    }

    @Test
    void theLeaderServesChunksOfItsLatestSnapshotOnly() {
        SnapshotTransfer leader = leaderSide(diskWithSnapshot());
        FetchSnapshotResponse first = ask(leader, leaderRole, SNAPSHOT, 0);
        assertThat(first.error()).isEqualTo(FetchError.NONE);
        assertThat(first.bytes()).isEqualTo(Arrays.copyOfRange(CONTENT, 0, 7));
        assertThat(first.size()).isEqualTo(CONTENT.length);
        assertThat(first.leaderId()).isEqualTo(1);
        assertThat(ask(leader, leaderRole, new OffsetAndEpoch(5, 2), 0).error())
                .isEqualTo(FetchError.SNAPSHOT_NOT_FOUND);
        assertThat(ask(leader, leaderRole, SNAPSHOT, CONTENT.length).error())
                .isEqualTo(FetchError.POSITION_OUT_OF_RANGE);
        // elected at 0, so only the requests at 1000 can count as contact with node 2
        assertThat(leaderRole.progress().heardFromMajority(1_000, 10)).isTrue();
    }

    @Test
    void aNodeThatDoesNotLeadTheRequestsEpochRefusesAndNamesTheLeaderItKnows() {
        SnapshotTransfer notLeader = leaderSide(diskWithSnapshot());
        FetchSnapshotResponse refused = ask(notLeader, new Follower(4, 3), SNAPSHOT, 0);
        assertThat(refused.error()).isEqualTo(FetchError.NOT_LEADER);
        assertThat(refused.epoch()).isEqualTo(4);
        assertThat(refused.bytes()).isEmpty();
        FetchSnapshotResponse fenced =
                ask(notLeader, new Leader(5, new LeaderProgress(1, List.of(1, 2), 0)), SNAPSHOT, 0);
        assertThat(fenced.error()).isEqualTo(FetchError.FENCED_EPOCH);
        assertThat(fenced.epoch()).isEqualTo(5);
    }

    @Test
    void aFollowerDownloadsChecksAndInstallsTheSnapshotChunkByChunk() {
        SnapshotTransfer leader = leaderSide(diskWithSnapshot());
        SimDisk followerDisk = new SimDisk(false);
        SnapshotTransfer follower = followerSide(followerDisk);
        follower.start(followerRole, SNAPSHOT);
        ChunkOutcome outcome = null;
        int chunks = 0;
        while (!toLeader.isEmpty()) {
            leader.serve((FetchSnapshotRequest) toLeader.poll(), leaderRole, 1, 0);
            FetchSnapshotResponse chunk = (FetchSnapshotResponse) toFollower.poll();
            assertThat(follower.expects(chunk)).isTrue();
            outcome = follower.accept(followerRole, chunk);
            chunks++;
            // a repeat of the chunk just taken is a late duplicate
            assertThat(follower.expects(chunk)).isFalse();
        }
        assertThat(chunks).isEqualTo((CONTENT.length + 6) / 7);
        assertThat(outcome).isEqualTo(ChunkOutcome.INSTALLED);
        assertThat(follower.downloading()).isFalse();
        assertThat(followerDisk.latestSnapshot()).map(SnapshotInfo::id).contains(SNAPSHOT);
        assertThat(followerDisk.startOffset()).isEqualTo(6);
    }

    @Test
    void aChunkThatDisagreesWithTheFirstOnesSizeStartsTheDownloadOver() {
        SnapshotTransfer leader = leaderSide(diskWithSnapshot());
        SnapshotTransfer follower = followerSide(new SimDisk(false));
        follower.start(followerRole, SNAPSHOT);
        leader.serve((FetchSnapshotRequest) toLeader.poll(), leaderRole, 1, 0);
        assertThat(follower.accept(followerRole, (FetchSnapshotResponse) toFollower.poll()))
                .isEqualTo(ChunkOutcome.REQUESTED_NEXT);
        FetchSnapshotRequest second = (FetchSnapshotRequest) toLeader.poll();
        assertThat(second.position()).isEqualTo(7);
        leader.serve(second, leaderRole, 1, 0);
        FetchSnapshotResponse good = (FetchSnapshotResponse) toFollower.poll();
        FetchSnapshotResponse corrupt = new FetchSnapshotResponse(
                1, 2, 4, FetchError.NONE, 1, SNAPSHOT, CONTENT.length + 1, good.crc32c(), 7, good.bytes());
        assertThat(follower.accept(followerRole, corrupt)).isEqualTo(ChunkOutcome.REQUESTED_NEXT);
        assertThat(((FetchSnapshotRequest) toLeader.poll()).position()).isZero();
        assertThat(follower.downloading()).isTrue();
    }

    @Test
    void anErrorFromTheLeaderAbandonsTheDownload() {
        SnapshotTransfer follower = followerSide(new SimDisk(false));
        follower.start(followerRole, SNAPSHOT);
        toLeader.clear();
        FetchSnapshotResponse gone =
                new FetchSnapshotResponse(1, 2, 4, FetchError.SNAPSHOT_NOT_FOUND, 1, SNAPSHOT, 0, 0, 0, new byte[0]);
        assertThat(follower.expects(gone)).isTrue();
        assertThat(follower.accept(followerRole, gone)).isEqualTo(ChunkOutcome.ABANDONED);
        assertThat(follower.downloading()).isFalse();
        assertThat(toLeader).isEmpty();
    }

    @Test
    void aSnapshotThatIsNotBeyondOursOrFromALaterEpochIsNotDownloaded() {
        SnapshotTransfer follower = followerSide(diskWithSnapshot());
        follower.start(followerRole, SNAPSHOT);
        follower.start(followerRole, new OffsetAndEpoch(4, 2));
        SnapshotTransfer empty = followerSide(new SimDisk(false));
        empty.start(followerRole, new OffsetAndEpoch(6, 5));
        empty.start(followerRole, new OffsetAndEpoch(6, 0));
        assertThat(follower.downloading()).isFalse();
        assertThat(empty.downloading()).isFalse();
        assertThat(toLeader).isEmpty();
    }

    @Test
    void aDownloadOvertakenByASnapshotOfOurOwnInstallsNothing() {
        SnapshotTransfer leader = leaderSide(diskWithSnapshot());
        SimDisk followerDisk = new SimDisk(false);
        SnapshotTransfer follower = followerSide(followerDisk);
        follower.start(followerRole, SNAPSHOT);
        ChunkOutcome outcome = null;
        while (!toLeader.isEmpty()) {
            leader.serve((FetchSnapshotRequest) toLeader.poll(), leaderRole, 1, 0);
            FetchSnapshotResponse chunk = (FetchSnapshotResponse) toFollower.poll();
            if (toLeader.isEmpty() && chunk.position() + chunk.length() == CONTENT.length) {
                // the last chunk is in flight when the node gets the same snapshot another way
                followerDisk.installSnapshot(SNAPSHOT, CONTENT);
            }
            outcome = follower.accept(followerRole, chunk);
        }
        assertThat(outcome).isEqualTo(ChunkOutcome.ALREADY_COVERED);
        assertThat(follower.downloading()).isFalse();
    }
}
