package dev.strait.broker.raft;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * A {@link RaftStorage} for the simulation whose log forgets what was not flushed when the node crashes. A crash
 * keeps a random prefix of the appends made since the last flush (writes reach the platter in order, but any
 * number of them may be missing), unless a truncation happened since, in which case it returns to exactly the
 * flushed log. The election state and snapshots are durable on write, as {@link FileRaftStorage} makes them
 * (temp file, fsync, rename); installing a snapshot rewrites (and so makes durable) the suffix of the log it
 * keeps. The high-watermark checkpoint is overwritten in place without an fsync, so a crash leaves the latest
 * checkpoint, the one before it, or a garbled file that counts as none.
 *
 * <p>A crash in the middle of {@link #installSnapshot} can be armed ({@link #armSnapshotCrash}): the power
 * fails either while the snapshot's temp file is written (it is torn and never renamed, so the old state
 * survives) or after the snapshot is stored but before the log is rewritten behind it. The call then throws
 * {@link PowerLoss}; the simulation crashes the node, and {@link #crash} recovers the way
 * {@link FileRaftStorage} opens a directory.
 *
 * <p>{@code lying} makes {@link #flush()} a no-op: the deliberately broken disk that proves the simulation's
 * checker can fail.
 */
final class SimDisk implements RaftStorage {

    /** Where an armed crash interrupts {@link #installSnapshot}. */
    enum SnapshotCrash {
        /** While writing the temp file: the snapshot never becomes visible. */
        TORN_TEMP_FILE,
        /** After the snapshot was renamed into place, before the log was rewritten behind it. */
        BEFORE_LOG_REWRITE
    }

    /** The power failed inside a storage call; the node must be treated as crashed. */
    static final class PowerLoss extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PowerLoss(String message) {
            super(message);
        }
    }

    private final boolean lying;
    private long startOffset;
    private final List<LogEntry> log = new ArrayList<>();
    private List<LogEntry> flushedLog = List.of();
    private boolean truncatedSinceFlush;
    private ElectionState electionState = ElectionState.INITIAL;
    private SnapshotInfo snapshot;
    private byte[] snapshotContent;
    private long highWatermark;
    private long previousHighWatermark;
    private SnapshotCrash armed;
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
    public long startOffset() {
        return startOffset;
    }

    @Override
    public long endOffset() {
        return startOffset + log.size();
    }

    @Override
    public LogEntry entry(long offset) {
        if (offset < startOffset || offset >= endOffset()) {
            throw new IndexOutOfBoundsException(
                    "offset " + offset + " outside [" + startOffset + ", " + endOffset() + ")");
        }
        return log.get(Math.toIntExact(offset - startOffset));
    }

    @Override
    public void append(LogEntry entry) {
        if (entry.offset() != endOffset()) {
            throw new IllegalStateException("append of " + entry + " at end " + endOffset());
        }
        log.add(entry);
    }

    @Override
    public void truncateTo(long endOffset) {
        if (endOffset < startOffset) {
            throw new IllegalArgumentException("truncation to " + endOffset + " below the log start " + startOffset);
        }
        if (endOffset < endOffset()) {
            log.subList(Math.toIntExact(endOffset - startOffset), log.size()).clear();
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

    @Override
    public Optional<SnapshotInfo> latestSnapshot() {
        return Optional.ofNullable(snapshot);
    }

    @Override
    public Optional<byte[]> readSnapshot(OffsetAndEpoch id, long position, int maxBytes) {
        if (snapshot == null || !snapshot.id().equals(id)) {
            return Optional.empty();
        }
        if (position < 0 || position > snapshotContent.length || maxBytes < 0) {
            throw new IllegalArgumentException("position " + position + " outside " + snapshot);
        }
        int from = (int) position;
        return Optional.of(Arrays.copyOfRange(
                snapshotContent, from, (int) Math.min(snapshotContent.length, from + (long) maxBytes)));
    }

    @Override
    public void installSnapshot(OffsetAndEpoch id, byte[] content) {
        if (snapshot != null && id.offset() <= snapshot.endOffset()) {
            throw new IllegalArgumentException("snapshot " + id + " is not beyond the latest " + snapshot);
        }
        if (armed == SnapshotCrash.TORN_TEMP_FILE) {
            armed = null;
            throw new PowerLoss("power lost while writing the temp file of snapshot " + id);
        }
        CRC32C crc = new CRC32C();
        crc.update(content, 0, content.length);
        snapshot = new SnapshotInfo(id, content.length, (int) crc.getValue());
        snapshotContent = content.clone();
        if (armed == SnapshotCrash.BEFORE_LOG_REWRITE) {
            armed = null;
            throw new PowerLoss("power lost after storing snapshot " + id + ", before rewriting the log");
        }
        List<LogEntry> kept = suffixAfterSnapshot(log, startOffset);
        log.clear();
        log.addAll(kept);
        startOffset = id.offset();
        flushedLog = List.copyOf(log);
        truncatedSinceFlush = false;
    }

    @Override
    public long highWatermark() {
        return highWatermark;
    }

    @Override
    public void writeHighWatermark(long value) {
        previousHighWatermark = highWatermark;
        highWatermark = value;
    }

    /** The next {@link #installSnapshot} fails with {@link PowerLoss} at {@code where}. */
    void armSnapshotCrash(SnapshotCrash where) {
        armed = where;
    }

    /**
     * Power loss, then the recovery {@link FileRaftStorage#open} does: what survives is the flushed log, maybe
     * plus some of the appends made after it; entries the snapshot covers are dropped, and a log that does not
     * continue the snapshot is emptied. A pending crash that was armed but not reached is disarmed.
     */
    void crash(Random random) {
        armed = null;
        int checkpoint = random.nextInt(3);
        highWatermark = checkpoint == 0 ? highWatermark : checkpoint == 1 ? previousHighWatermark : 0;
        previousHighWatermark = highWatermark;
        List<LogEntry> survivors = new ArrayList<>(flushedLog);
        if (!truncatedSinceFlush && log.size() > flushedLog.size() && startsWith(log, flushedLog)) {
            int unflushed = log.size() - flushedLog.size();
            survivors.addAll(log.subList(flushedLog.size(), flushedLog.size() + random.nextInt(unflushed + 1)));
        }
        if (snapshot != null && startOffset < snapshot.endOffset()) {
            survivors = suffixAfterSnapshot(survivors, startOffset);
            startOffset = snapshot.endOffset();
        }
        log.clear();
        log.addAll(survivors);
        flushedLog = List.copyOf(survivors);
        truncatedSinceFlush = false;
    }

    long flushes() {
        return flushes;
    }

    /** The entries of {@code entries} (starting at {@code from}) after the snapshot, if they continue it. */
    private List<LogEntry> suffixAfterSnapshot(List<LogEntry> entries, long from) {
        long last = snapshot.endOffset() - 1;
        if (last < from
                || last >= from + entries.size()
                || entries.get((int) (last - from)).epoch() != snapshot.id().epoch()) {
            return new ArrayList<>();
        }
        return new ArrayList<>(entries.subList((int) (last - from) + 1, entries.size()));
    }

    private static boolean startsWith(List<LogEntry> list, List<LogEntry> prefix) {
        return list.size() >= prefix.size() && list.subList(0, prefix.size()).equals(prefix);
    }
}
