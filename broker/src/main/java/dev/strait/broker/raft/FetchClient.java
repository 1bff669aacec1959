package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Prospective;
import dev.strait.broker.raft.RaftRole.Unattached;
import java.util.List;
import java.util.Random;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pulling side of Fetch for one {@link RaftNode}: when the next fetch is due, whom it asks, and what an answer
 * from the followed leader does to the log: truncate a divergent suffix, start a snapshot download, or append the
 * entries, flush them and take the leader's high watermark. FetchSnapshot chunks go to {@link SnapshotTransfer};
 * what a finished download means for the log is decided here.
 *
 * <p>It exists so that the node's class keeps to roles and transitions. The node still decides whether an answer is
 * from the leader it follows ({@link ResponsePreamble}) and counts it as contact with that leader before handing it
 * over; nothing here changes the role. Not thread-safe; owned by the node.
 */
final class FetchClient {

    private static final Logger LOGGER = LoggerFactory.getLogger(FetchClient.class);
    private static final int NONE = ElectionState.NONE;

    private final int nodeId;
    private final List<Integer> voters;
    private final RaftConfig config;
    private final RaftStorage storage;
    private final RaftTransport transport;
    private final Random random;
    private final EpochIndex epochIndex;
    private final SnapshotTransfer snapshots;
    private final SnapshotSchedule snapshotSchedule;
    private final HighWatermark highWatermark;
    private final String logPrefix;

    /** When the next fetch (or snapshot chunk request) is due; Long.MAX_VALUE while this node fetches nothing. */
    private long deadlineMs = Long.MAX_VALUE;

    FetchClient(
            int nodeId,
            List<Integer> voters,
            RaftConfig config,
            RaftStorage storage,
            RaftTransport transport,
            Random random,
            EpochIndex epochIndex,
            SnapshotTransfer snapshots,
            SnapshotSchedule snapshotSchedule,
            HighWatermark highWatermark,
            String logPrefix) {
        this.nodeId = nodeId;
        this.voters = voters;
        this.config = config;
        this.storage = storage;
        this.transport = transport;
        this.random = random;
        this.epochIndex = epochIndex;
        this.snapshots = snapshots;
        this.snapshotSchedule = snapshotSchedule;
        this.highWatermark = highWatermark;
        this.logPrefix = logPrefix;
    }

    long deadlineMs() {
        return deadlineMs;
    }

    /** The next fetch is due at {@code deadlineMs} (Long.MAX_VALUE: none until the role changes). */
    void scheduleAt(long deadlineMs) {
        this.deadlineMs = deadlineMs;
    }

    /** Fetches from {@code destination} in {@code epoch} now, and expects an answer within the fetch timeout. */
    void send(int destination, int epoch, long nowMs) {
        transport.send(new FetchRequest(nodeId, destination, epoch, storage.endOffset(), epochIndex.lastEpoch()));
        deadlineMs = nowMs + config.fetchTimeoutMs();
    }

    /**
     * The fetch timer fired in {@code role}: a follower asks its leader again (or for the snapshot chunk it
     * waits for), a prospect asks the leader it last followed, and an unattached node asks a random voter who leads.
     */
    void onTimeout(RaftRole role, long nowMs) {
        if (role instanceof Follower follower && snapshots.downloading()) {
            snapshots.requestChunk(follower);
            deadlineMs = nowMs + config.fetchTimeoutMs();
        } else if (role instanceof Follower follower) {
            send(follower.leaderId(), follower.epoch(), nowMs);
        } else if (role instanceof Prospective prospective && prospective.leaderId() != NONE) {
            send(prospective.leaderId(), prospective.epoch(), nowMs);
        } else if (role instanceof Unattached unattached) {
            // Ask a random voter who leads; whoever knows answers with the leader and its epoch.
            List<Integer> others = voters.stream().filter(v -> v != nodeId).toList();
            if (others.isEmpty()) {
                deadlineMs = Long.MAX_VALUE;
            } else {
                send(others.get(random.nextInt(others.size())), unattached.epoch(), nowMs);
            }
        } else {
            deadlineMs = Long.MAX_VALUE;
        }
    }

    /**
     * Whether {@code response} answers a fetch of the log as it is now; anything else (an answer during a snapshot
     * download, a late or duplicate answer) is dropped.
     */
    boolean answersCurrentLog(FetchResponse response) {
        return !snapshots.downloading()
                && response.fetchOffset() == storage.endOffset()
                && response.lastFetchedEpoch() == epochIndex.lastEpoch();
    }

    /** Applies an error-free {@code response} from {@code follower}'s leader that {@link #answersCurrentLog}. */
    void onFetchResponse(Follower follower, FetchResponse response, long nowMs) {
        if (response.snapshotId() != null) {
            snapshots.start(follower, response.snapshotId());
            deadlineMs = nowMs + config.fetchTimeoutMs();
            return;
        }
        if (response.divergingEpoch() != null) {
            truncateDivergentSuffix(response.divergingEpoch());
            send(follower.leaderId(), follower.epoch(), nowMs);
            return;
        }
        for (LogEntry entry : response.entries()) {
            if (entry.offset() != storage.endOffset()) {
                throw new IllegalStateException(
                        logPrefix + "non-contiguous fetch: " + entry + " at end " + storage.endOffset());
            }
            storage.append(entry);
            epochIndex.onAppend(entry);
        }
        if (!response.entries().isEmpty()) {
            storage.flush(); // the next fetch tells the leader these are stored, so they must be durable first
        }
        highWatermark.advanceAsFollower(response.highWatermark(), follower.leaderId());
        if (response.entries().isEmpty()) {
            deadlineMs = nowMs + config.fetchBackoffMs();
        } else {
            send(follower.leaderId(), follower.epoch(), nowMs);
        }
    }

    /** Applies a snapshot chunk from {@code follower}'s leader that {@link SnapshotTransfer#expects}. */
    void onFetchSnapshotResponse(Follower follower, FetchSnapshotResponse response, long nowMs) {
        switch (snapshots.accept(follower, response)) {
            case REQUESTED_NEXT -> deadlineMs = nowMs + config.fetchTimeoutMs();
            case ABANDONED -> deadlineMs = nowMs + config.fetchBackoffMs();
            case INSTALLED -> {
                highWatermark.onSnapshotInstalled(response.snapshotId().offset());
                snapshotSchedule.restart(storage, highWatermark.value(), nowMs);
                send(follower.leaderId(), follower.epoch(), nowMs);
            }
            case ALREADY_COVERED -> send(follower.leaderId(), follower.epoch(), nowMs);
        }
    }

    private void truncateDivergentSuffix(OffsetAndEpoch leaderEnd) {
        OffsetAndEpoch ours = epochIndex.endOffsetFor(leaderEnd.epoch(), storage.endOffset());
        long truncateTo = Math.min(leaderEnd.offset(), ours.offset());
        if (truncateTo < highWatermark.value()) {
            throw new IllegalStateException(logPrefix + "leader asks to truncate to " + truncateTo
                    + ", below the high watermark " + highWatermark.value());
        }
        LOGGER.debug("{}truncating divergent log from {} to {}", logPrefix, storage.endOffset(), truncateTo);
        storage.truncateTo(truncateTo);
        epochIndex.onTruncate(truncateTo);
    }
}
