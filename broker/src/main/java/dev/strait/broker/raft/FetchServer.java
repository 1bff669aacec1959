package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftRole.Leader;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The leader's side of Fetch for one {@link RaftNode}. Each fetch gets exactly one answer: a refusal if this node
 * does not lead the fetch's epoch ({@link RequestPreamble}); the latest snapshot's id if its log can no longer check
 * or serve the follower's position ({@link SnapshotTransfer#snapshotToFetchInstead}); the leader's end offset for the
 * follower's last epoch if the follower's log diverges from its own; otherwise the entries from the fetch offset.
 *
 * <p>It exists so that the node's class keeps to roles and transitions: serving a fetch never changes the role. A
 * fetch that is served counts as the follower's progress, which may move the {@link HighWatermark} before the
 * answer carries it. Not thread-safe; owned by the node.
 */
final class FetchServer {

    /** A fetch answer stops adding entries past this many payload bytes, well inside a transport frame. */
    private static final long MAX_FETCH_BYTES = 4L * 1024 * 1024;

    private final int nodeId;
    private final RaftConfig config;
    private final RaftStorage storage;
    private final RaftTransport transport;
    private final EpochIndex epochIndex;
    private final SnapshotTransfer snapshots;
    private final HighWatermark highWatermark;

    FetchServer(
            int nodeId,
            RaftConfig config,
            RaftStorage storage,
            RaftTransport transport,
            EpochIndex epochIndex,
            SnapshotTransfer snapshots,
            HighWatermark highWatermark) {
        this.nodeId = nodeId;
        this.config = config;
        this.storage = storage;
        this.transport = transport;
        this.epochIndex = epochIndex;
        this.snapshots = snapshots;
        this.highWatermark = highWatermark;
    }

    /** Answers {@code request}; {@code role} and {@code leaderId} are the node's. */
    void serve(FetchRequest request, RaftRole role, int leaderId, long nowMs) {
        FetchError refusal = RequestPreamble.check(role, request.epoch());
        if (refusal != FetchError.NONE) {
            send(request, role.epoch(), refusal, leaderId, null, List.of(), null);
            return;
        }
        Leader leader = (Leader) role;
        Optional<OffsetAndEpoch> snapshotId = snapshots.snapshotToFetchInstead(request);
        if (snapshotId.isPresent()) {
            leader.progress().onContact(request.source(), nowMs);
            send(request, leader.epoch(), FetchError.NONE, nodeId, null, List.of(), snapshotId.get());
            return;
        }
        OffsetAndEpoch ours = epochIndex.endOffsetFor(request.lastFetchedEpoch(), storage.endOffset());
        if (ours.epoch() != request.lastFetchedEpoch() || ours.offset() < request.fetchOffset()) {
            send(request, leader.epoch(), FetchError.NONE, nodeId, ours, List.of(), null);
            return;
        }
        leader.progress().onFetch(request.source(), request.fetchOffset(), storage.endOffset(), nowMs);
        highWatermark.maybeAdvanceAsLeader(leader);
        send(request, leader.epoch(), FetchError.NONE, nodeId, null, entriesFrom(request.fetchOffset()), null);
    }

    /** The entries from {@code fetchOffset}, at most {@link RaftConfig#maxFetchEntries()} and about a frame's worth. */
    private List<LogEntry> entriesFrom(long fetchOffset) {
        long end = Math.min(storage.endOffset(), fetchOffset + config.maxFetchEntries());
        List<LogEntry> entries = new ArrayList<>((int) (end - fetchOffset));
        long bytes = 0;
        for (long offset = fetchOffset; offset < end && (entries.isEmpty() || bytes < MAX_FETCH_BYTES); offset++) {
            LogEntry entry = storage.entry(offset);
            entries.add(entry);
            bytes += entry.payloadSize();
        }
        return entries;
    }

    /** Sends the one answer to {@code request}; it echoes the request's position and carries the high watermark. */
    private void send(
            FetchRequest request,
            int epoch,
            FetchError error,
            int leaderId,
            @Nullable OffsetAndEpoch divergingEpoch,
            List<LogEntry> entries,
            @Nullable OffsetAndEpoch snapshotId) {
        transport.send(new FetchResponse(
                nodeId,
                request.source(),
                epoch,
                error,
                leaderId,
                request.fetchOffset(),
                request.lastFetchedEpoch(),
                divergingEpoch,
                entries,
                highWatermark.value(),
                snapshotId));
    }
}
