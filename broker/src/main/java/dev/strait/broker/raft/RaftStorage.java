package dev.strait.broker.raft;

import java.util.Optional;

/**
 * The durable state of one Raft node: its {@link ElectionState}, its log, the latest snapshot of the state
 * machine and a checkpoint of the high watermark. Production uses {@link FileRaftStorage}; the simulation uses a
 * fake disk that forgets everything not flushed when a node crashes, which is why appends and truncations are
 * only durable after {@link #flush()}.
 *
 * <p>The log holds the entries {@code [startOffset, endOffset)}. Once a snapshot is installed the log starts
 * where the snapshot ends: the snapshot stands in for every entry below, and only the suffix is kept (on disk
 * and in memory).
 *
 * <p>Not thread-safe; owned by the thread that drives the {@link RaftNode}.
 */
public interface RaftStorage {

    /** The election state last written, or {@link ElectionState#INITIAL}. */
    ElectionState electionState();

    /** Replaces the election state durably: when this returns, a crash cannot bring back the old one. */
    void writeElectionState(ElectionState state);

    /** First offset the log holds: the end of the latest snapshot, or 0 without one. */
    long startOffset();

    /** Offset the next appended entry gets; the log holds entries {@code [startOffset, endOffset)}. */
    long endOffset();

    /** The entry at {@code offset}, which must be in {@code [startOffset, endOffset)}. */
    LogEntry entry(long offset);

    /** Appends at {@link #endOffset()}; not durable until {@link #flush()}. */
    void append(LogEntry entry);

    /** Drops entries at and above {@code endOffset} (never below {@link #startOffset()}); durable after flush. */
    void truncateTo(long endOffset);

    /** Makes every earlier append and truncation durable. */
    void flush();

    /** The latest snapshot, if any. */
    Optional<SnapshotInfo> latestSnapshot();

    /**
     * Up to {@code maxBytes} of the content of snapshot {@code id} from {@code position}; empty if that snapshot
     * is no longer stored. {@code position} must be within the content.
     */
    Optional<byte[]> readSnapshot(OffsetAndEpoch id, long position, int maxBytes);

    /**
     * Stores {@code content} as the snapshot {@code id} and makes it the latest, then moves the log start to
     * {@code id.offset()}: if the log holds the entry at {@code id.offset() - 1} with epoch {@code id.epoch()}
     * the entries from {@code id.offset()} on are kept, otherwise the log is emptied (it diverged from, or ends
     * before, what the snapshot covers). Older snapshots are deleted. All of it is durable when this returns,
     * the kept suffix included, and a crash part way leaves either the old or the new state (never a torn
     * snapshot). {@code id} must be beyond the latest snapshot.
     */
    void installSnapshot(OffsetAndEpoch id, byte[] content);

    /** The high watermark last checkpointed with {@link #writeHighWatermark}, or 0. */
    long highWatermark();

    /**
     * Checkpoints the high watermark. The entries below it must already be flushed. The checkpoint need not be
     * durable at once: a crash may bring back an older one (the node then waits for a leader to learn the rest),
     * never a newer one than what was written.
     */
    void writeHighWatermark(long highWatermark);
}
