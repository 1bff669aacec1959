package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftRole.Leader;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link RaftNode}'s high watermark (Raft's commit index) and what hangs on it: the proposals waiting for it to
 * pass their offsets, its checkpoint on disk, and whether it has reached the quorum's since the node started.
 *
 * <p>It exists so that the three ways it moves sit in one place, apart from elections and fetching: as leader by
 * Raft's commit rule ({@link #maybeAdvanceAsLeader}), as follower by the leader's word ({@link #advanceAsFollower}),
 * and to a snapshot's end when one is installed. It never goes back. Every entry it passes is counted by the
 * {@link SnapshotSchedule}. Not thread-safe; owned by the node.
 */
final class HighWatermark {

    private static final Logger LOGGER = LoggerFactory.getLogger(HighWatermark.class);

    private final RaftConfig config;
    private final RaftStorage storage;
    private final SnapshotSchedule snapshotSchedule;
    private final String logPrefix;
    /** Futures of this leader's proposals by offset, completed once the high watermark passes them. */
    private final NavigableMap<Long, CompletableFuture<Long>> pendingProposals = new TreeMap<>();

    /** Entries below this offset are committed. Checkpointed to disk from time to time; never goes back. */
    private long value;

    private long durableValue;
    private long checkpointDueMs;
    /**
     * Whether the high watermark has reached the quorum's since the node started: set when a fetch answer from the
     * leader leaves it at the leader's high watermark, or when the node commits an entry of its own epoch as leader.
     * Until then the checkpointed high watermark is all it knows, which may be far behind. Never goes back.
     */
    private boolean caughtUpWithQuorum;

    /**
     * Starts from the larger of the checkpoint and the log start (the snapshot's end), so a restarted node serves
     * what it knows is committed before it hears from a leader.
     *
     * @throws IllegalStateException if the checkpoint is beyond the end of the log
     */
    HighWatermark(
            RaftConfig config, RaftStorage storage, SnapshotSchedule snapshotSchedule, String logPrefix, long nowMs) {
        this.config = config;
        this.storage = storage;
        this.snapshotSchedule = snapshotSchedule;
        this.logPrefix = logPrefix;
        this.durableValue = storage.highWatermark();
        if (durableValue > storage.endOffset()) {
            throw new IllegalStateException(logPrefix + "the high-watermark checkpoint " + durableValue
                    + " is beyond the end of the log " + storage.endOffset() + ": the disk lost entries that were "
                    + "flushed, so this node may have acknowledged what it no longer has; refusing to start");
        }
        this.value = Math.max(durableValue, storage.startOffset());
        this.checkpointDueMs = nowMs;
    }

    long value() {
        return value;
    }

    boolean caughtUpWithQuorum() {
        return caughtUpWithQuorum;
    }

    /** A future that completes with {@code offset}, a proposal of this leader, once that entry is committed. */
    CompletableFuture<Long> awaitCommit(long offset) {
        CompletableFuture<Long> committed = new CompletableFuture<>();
        pendingProposals.put(offset, committed);
        return committed;
    }

    /** Moves up to what a majority of voters flushed, if that passes an entry of {@code leader}'s own epoch. */
    void maybeAdvanceAsLeader(Leader leader) {
        long majorityEnd = leader.progress().majorityEndOffset();
        // Raft's commit rule: count replicas only for an entry of our own epoch. Entries from earlier epochs
        // become committed with it, never on their own, or a later leader could still overwrite them.
        if (majorityEnd <= value || storage.entry(majorityEnd - 1).epoch() != leader.epoch()) {
            return;
        }
        advanceTo(majorityEnd);
        caughtUpWithQuorum = true;
        NavigableMap<Long, CompletableFuture<Long>> done = pendingProposals.headMap(majorityEnd, false);
        List<Long> offsets = new ArrayList<>(done.keySet());
        List<CompletableFuture<Long>> futures = new ArrayList<>(done.values());
        done.clear();
        for (int i = 0; i < offsets.size(); i++) {
            futures.get(i).complete(offsets.get(i));
        }
    }

    /**
     * Moves up to {@code leaderHighWatermark}, from a fetch answer of leader {@code leaderId}, as far as this node's
     * log reaches.
     */
    void advanceAsFollower(long leaderHighWatermark, int leaderId) {
        advanceTo(Math.min(leaderHighWatermark, storage.endOffset()));
        if (value >= leaderHighWatermark && !caughtUpWithQuorum) {
            caughtUpWithQuorum = true;
            LOGGER.info("{}caught up with the quorum's high watermark {} (leader {})", logPrefix, value, leaderId);
        }
    }

    /** A snapshot from the leader was installed; the leader only snapshots what it committed. */
    void onSnapshotInstalled(long snapshotEndOffset) {
        value = Math.max(value, snapshotEndOffset);
    }

    /** Fails the pending proposals: the node lost the leadership of {@code epoch}, and the next leader decides. */
    void failPendingProposals(int epoch) {
        List<CompletableFuture<Long>> orphans = new ArrayList<>(pendingProposals.values());
        pendingProposals.clear();
        for (CompletableFuture<Long> orphan : orphans) {
            orphan.completeExceptionally(new NotLeaderException("lost the leadership", ElectionState.NONE, epoch));
        }
    }

    /** Writes the high watermark to disk at most every checkpoint interval; everything below it is flushed. */
    void maybeCheckpoint(long nowMs) {
        if (value > durableValue && nowMs >= checkpointDueMs) {
            storage.writeHighWatermark(value);
            durableValue = value;
            checkpointDueMs = nowMs + config.highWatermarkCheckpointMs();
        }
    }

    /** When {@link #maybeCheckpoint} next has something to write; Long.MAX_VALUE while the checkpoint is current. */
    long nextCheckpointMs() {
        return value > durableValue ? checkpointDueMs : Long.MAX_VALUE;
    }

    private void advanceTo(long candidate) {
        for (long offset = value; offset < candidate; offset++) {
            snapshotSchedule.onCommitted(storage.entry(offset));
        }
        value = Math.max(value, candidate);
    }
}
