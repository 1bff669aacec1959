package dev.strait.broker.raft;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A {@link RaftStorage} for the simulation whose log forgets what was not flushed when the node crashes. A crash
 * keeps a random prefix of the appends made since the last flush (writes reach the platter in order, but any
 * number of them may be missing), unless a truncation happened since, in which case it returns to exactly the
 * flushed log. The election state is durable on write, as {@link FileRaftStorage} makes it (temp file, fsync,
 * rename).
 *
 * <p>{@code lying} makes {@link #flush()} a no-op: the deliberately broken disk that proves the simulation's
 * checker can fail.
 */
final class SimDisk implements RaftStorage {

    private final boolean lying;
    private final List<LogEntry> log = new ArrayList<>();
    private List<LogEntry> flushedLog = List.of();
    private boolean truncatedSinceFlush;
    private ElectionState electionState = ElectionState.INITIAL;
    private long flushes;

    SimDisk(boolean lying) {
        this.lying = lying;
    }

    @Override
    public ElectionState electionState() {
        return electionState;
    }

    @Override
    public void writeElectionState(ElectionState state) {
        electionState = state;
    }

    @Override
    public long endOffset() {
        return log.size();
    }

    @Override
    public LogEntry entry(long offset) {
        return log.get(Math.toIntExact(offset));
    }

    @Override
    public void append(LogEntry entry) {
        if (entry.offset() != log.size()) {
            throw new IllegalStateException("append of " + entry + " at end " + log.size());
        }
        log.add(entry);
    }

    @Override
    public void truncateTo(long endOffset) {
        if (endOffset < log.size()) {
            log.subList(Math.toIntExact(endOffset), log.size()).clear();
            truncatedSinceFlush = true;
        }
    }

    @Override
    public void flush() {
        flushes++;
        if (lying) {
            return;
        }
        flushedLog = List.copyOf(log);
        truncatedSinceFlush = false;
    }

    /** Power loss: what survives is the flushed log, maybe plus some of the appends made after it. */
    void crash(Random random) {
        List<LogEntry> survivors = new ArrayList<>(flushedLog);
        if (!truncatedSinceFlush && log.size() > flushedLog.size() && startsWith(log, flushedLog)) {
            int unflushed = log.size() - flushedLog.size();
            survivors.addAll(log.subList(flushedLog.size(), flushedLog.size() + random.nextInt(unflushed + 1)));
        }
        log.clear();
        log.addAll(survivors);
        flushedLog = List.copyOf(survivors);
        truncatedSinceFlush = false;
    }

    long flushes() {
        return flushes;
    }

    private static boolean startsWith(List<LogEntry> list, List<LogEntry> prefix) {
        return list.size() >= prefix.size() && list.subList(0, prefix.size()).equals(prefix);
    }
}
