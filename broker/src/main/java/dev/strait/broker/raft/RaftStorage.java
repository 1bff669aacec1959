package dev.strait.broker.raft;

/**
 * The durable state of one Raft node: its {@link ElectionState} and its log. Production uses
 * {@link FileRaftStorage}; the simulation uses a fake disk that forgets everything not flushed when a node
 * crashes, which is why appends and truncations are only durable after {@link #flush()}.
 *
 * <p>Not thread-safe; owned by the thread that drives the {@link RaftNode}.
 */
public interface RaftStorage {

    /** The election state last written, or {@link ElectionState#INITIAL}. */
    ElectionState electionState();

    /** Replaces the election state durably: when this returns, a crash cannot bring back the old one. */
    void writeElectionState(ElectionState state);

    /** Offset the next appended entry gets; the log holds entries {@code [0, endOffset)}. */
    long endOffset();

    /** The entry at {@code offset}, which must be below {@link #endOffset()}. */
    LogEntry entry(long offset);

    /** Appends at {@link #endOffset()}; not durable until {@link #flush()}. */
    void append(LogEntry entry);

    /** Drops entries at and above {@code endOffset}; not durable until {@link #flush()}. */
    void truncateTo(long endOffset);

    /** Makes every earlier append and truncation durable. */
    void flush();
}
