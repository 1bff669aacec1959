package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Both ends of FetchSnapshot (KIP-630) for one {@link RaftNode}. As leader it decides which fetches must be
 * pointed at its latest snapshot and serves that snapshot's chunks; as follower it holds the download in progress,
 * asks for the next chunk and installs the snapshot once every byte is in and checked.
 *
 * <p>It sends only FetchSnapshot messages and touches only the stored snapshot and the epoch index. Timers, the
 * high watermark and the role stay with the node: each follower-side call says what happened, and the node acts
 * on it. Not thread-safe; owned by the node.
 */
final class SnapshotTransfer {

    /** What one chunk from the leader led to. */
    enum ChunkOutcome {
        /** The next chunk (or, after a corrupt one, the first again) was asked for. */
        REQUESTED_NEXT,
        /** The leader answered with an error; the download is dropped and the log fetch will say what to get. */
        ABANDONED,
        /** The snapshot was whole, checked and installed; the log now starts at its end. */
        INSTALLED,
        /** The snapshot was whole, but this node already holds one at least as recent; nothing was installed. */
        ALREADY_COVERED
    }

    private static final Logger LOGGER = LoggerFactory.getLogger(SnapshotTransfer.class);
    /** Cap on one FetchSnapshot chunk whatever the follower asks, well below the controller wire's frame limit. */
    private static final int MAX_SNAPSHOT_CHUNK_BYTES = 8 * 1024 * 1024;

    private static final byte[] NO_BYTES = new byte[0];

    private final int nodeId;
    private final RaftConfig config;
    private final RaftStorage storage;
    private final RaftTransport transport;
    private final EpochIndex epochIndex;
    private final String logPrefix;

    /** The snapshot this follower is downloading from its leader; null when it fetches the log. */
    private @Nullable SnapshotDownload download;

    SnapshotTransfer(
            int nodeId,
            RaftConfig config,
            RaftStorage storage,
            RaftTransport transport,
            EpochIndex epochIndex,
            String logPrefix) {
        this.nodeId = nodeId;
        this.config = config;
        this.storage = storage;
        this.transport = transport;
        this.epochIndex = epochIndex;
        this.logPrefix = logPrefix;
    }

    // ---------------------------------------------------------------- leader side

    /**
     * The latest snapshot's id if the leader's log can no longer check or serve {@code request}'s position, so the
     * fetch must be answered with the snapshot instead; empty if the log can.
     */
    Optional<OffsetAndEpoch> snapshotToFetchInstead(FetchRequest request) {
        return storage.latestSnapshot().map(SnapshotInfo::id).filter(id -> mustFetchSnapshot(request, id));
    }

    /**
     * KIP-630's check: the log can no longer validate the follower's position when it is below the log start,
     * at the log start in another epoch than the snapshot's last entry, or in an epoch older than that one
     * (the follower's entries then part from ours somewhere the snapshot covers).
     */
    static boolean mustFetchSnapshot(FetchRequest request, OffsetAndEpoch snapshotId) {
        return request.fetchOffset() < snapshotId.offset()
                || (request.fetchOffset() == snapshotId.offset() && request.lastFetchedEpoch() != snapshotId.epoch())
                || request.lastFetchedEpoch() < snapshotId.epoch();
    }

    /**
     * Answers a FetchSnapshot request: a chunk of the latest snapshot if this node leads the request's epoch and
     * still holds the snapshot asked for, an error otherwise. {@code role} and {@code leaderId} are the node's.
     */
    void serve(FetchSnapshotRequest request, RaftRole role, int leaderId, long nowMs) {
        FetchError refusal = RequestPreamble.check(role, request.epoch());
        if (refusal != FetchError.NONE) {
            sendError(request, role.epoch(), leaderId, refusal);
            return;
        }
        Leader leader = (Leader) role;
        leader.progress().onContact(request.source(), nowMs);
        Optional<SnapshotInfo> latest = storage.latestSnapshot();
        if (latest.isEmpty() || !latest.get().id().equals(request.snapshotId())) {
            sendError(request, leader.epoch(), nodeId, FetchError.SNAPSHOT_NOT_FOUND);
            return;
        }
        SnapshotInfo info = latest.get();
        if (request.position() < 0 || request.position() >= info.sizeBytes() || request.maxBytes() <= 0) {
            sendError(request, leader.epoch(), nodeId, FetchError.POSITION_OUT_OF_RANGE);
            return;
        }
        byte[] chunk = storage.readSnapshot(
                        info.id(), request.position(), Math.min(request.maxBytes(), MAX_SNAPSHOT_CHUNK_BYTES))
                .orElseThrow();
        transport.send(new FetchSnapshotResponse(
                nodeId,
                request.source(),
                leader.epoch(),
                FetchError.NONE,
                nodeId,
                info.id(),
                info.sizeBytes(),
                info.crc32c(),
                request.position(),
                chunk));
    }

    private void sendError(FetchSnapshotRequest request, int epoch, int leaderId, FetchError error) {
        transport.send(new FetchSnapshotResponse(
                nodeId,
                request.source(),
                epoch,
                error,
                leaderId,
                request.snapshotId(),
                0,
                0,
                request.position(),
                NO_BYTES));
    }

    // ---------------------------------------------------------------- follower side

    boolean downloading() {
        return download != null;
    }

    /** Drops the download, if any: a download belongs to one leader in one epoch. */
    void cancel() {
        download = null;
    }

    /**
     * Starts downloading {@code id}, which {@code follower}'s leader pointed at, and asks for its first chunk; or,
     * if {@code id} cannot be a snapshot beyond this node's own, ignores it. Either way the node should hear back
     * within a fetch timeout.
     */
    void start(Follower follower, OffsetAndEpoch id) {
        long ours = storage.latestSnapshot().map(SnapshotInfo::endOffset).orElse(0L);
        if (id.offset() <= ours || id.epoch() <= 0 || id.epoch() > follower.epoch()) {
            // A leader only points at a snapshot beyond ours; anything else is a confused peer, not a reason to
            // throw away our log. Ask again later.
            LOGGER.warn(
                    "{}ignoring leader {}'s snapshot {}: this node's latest snapshot ends at {}",
                    logPrefix,
                    follower.leaderId(),
                    id,
                    ours);
            return;
        }
        LOGGER.info(
                "{}fetching snapshot {} from leader {} (log {}..{})",
                logPrefix,
                id,
                follower.leaderId(),
                storage.startOffset(),
                storage.endOffset());
        download = new SnapshotDownload(id);
        requestChunk(follower);
    }

    /** The download in progress: callers act only while {@link #downloading} (or on what {@link #expects}). */
    private SnapshotDownload inProgress() {
        return Objects.requireNonNull(download, "no snapshot download in progress");
    }

    /** Asks {@code follower}'s leader for the chunk at the download's position; only while {@link #downloading}. */
    void requestChunk(Follower follower) {
        SnapshotDownload download = inProgress();
        transport.send(new FetchSnapshotRequest(
                nodeId,
                follower.leaderId(),
                follower.epoch(),
                download.id(),
                download.position(),
                config.snapshotChunkBytes()));
    }

    /** Whether {@code response} answers the chunk asked for last; anything else is a late or duplicate answer. */
    boolean expects(FetchSnapshotResponse response) {
        return download != null
                && download.id().equals(response.snapshotId())
                && response.position() == download.position();
    }

    /** Takes a response that {@link #expects} says answers the last request, from {@code follower}'s leader. */
    ChunkOutcome accept(Follower follower, FetchSnapshotResponse response) {
        SnapshotDownload download = inProgress();
        if (response.error() != FetchError.NONE) {
            // SNAPSHOT_NOT_FOUND: the leader took a newer snapshot; POSITION_OUT_OF_RANGE: we and the leader
            // disagree about this one. Either way a fresh fetch tells us which snapshot to get.
            LOGGER.info(
                    "{}snapshot {} download ended by {}; fetching again", logPrefix, download.id(), response.error());
            this.download = null;
            return ChunkOutcome.ABANDONED;
        }
        return switch (download.accept(response.size(), response.crc32c(), response.bytes())) {
            case MORE -> {
                requestChunk(follower);
                yield ChunkOutcome.REQUESTED_NEXT;
            }
            case RESTARTED -> {
                LOGGER.warn(
                        "{}snapshot {} chunk at {} disagrees with its size or checksum; downloading again",
                        logPrefix,
                        download.id(),
                        response.position());
                requestChunk(follower);
                yield ChunkOutcome.REQUESTED_NEXT;
            }
            case COMPLETE -> install(follower);
        };
    }

    private ChunkOutcome install(Follower follower) {
        SnapshotDownload download = inProgress();
        OffsetAndEpoch id = download.id();
        byte[] content = download.content();
        this.download = null;
        long ours = storage.latestSnapshot().map(SnapshotInfo::endOffset).orElse(0L);
        if (id.offset() <= ours) {
            return ChunkOutcome.ALREADY_COVERED;
        }
        storage.installSnapshot(id, content);
        epochIndex.reset(storage);
        LOGGER.info(
                "{}installed snapshot {} ({} bytes) from leader {}; log now {}..{}",
                logPrefix,
                id,
                content.length,
                follower.leaderId(),
                storage.startOffset(),
                storage.endOffset());
        return ChunkOutcome.INSTALLED;
    }

    /** The download in progress, or null when the follower fetches the log. */
    @Nullable
    SnapshotDownload download() {
        return download;
    }
}
