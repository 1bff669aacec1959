package dev.strait.broker.replication;

import dev.strait.broker.log.EpochEndOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * A replica's log on a fake disk: entries (one record each, offset = index), an epoch cache and a high
 * watermark checkpoint. {@link #flush()} makes everything so far durable; {@link #crash(boolean)} with power
 * loss drops what was not flushed, as a machine losing its page cache would.
 */
final class MemoryLog implements ReplicaLog {

    record Entry(int epoch, long value) {}

    record EpochStart(int epoch, long startOffset) {}

    private final List<Entry> entries = new ArrayList<>();
    private final List<EpochStart> epochs = new ArrayList<>();
    private long highWatermark;
    private int flushedEntries;
    private List<EpochStart> flushedEpochs = List.of();
    private long checkpointedHighWatermark;
    /** The lowest offset removed by a truncation since the invariant checker last looked. */
    private long lowestTruncation = Long.MAX_VALUE;

    long appendAsLeader(int epoch, long value) {
        entries.add(new Entry(epoch, value));
        return entries.size() - 1;
    }

    void appendAsFollower(long offset, Entry entry) {
        if (offset != entries.size()) {
            throw new IllegalStateException("follower append at " + offset + " but log end is " + entries.size());
        }
        if (!epochs.isEmpty() && entry.epoch() < epochs.get(epochs.size() - 1).epoch()) {
            // As PartitionLog: a batch may not carry an epoch older than the log's latest.
            throw new IllegalArgumentException("follower entry at " + offset + " has epoch " + entry.epoch()
                    + " below the log's epoch " + epochs.get(epochs.size() - 1).epoch());
        }
        if (epochs.isEmpty() || epochs.get(epochs.size() - 1).epoch() < entry.epoch()) {
            epochs.add(new EpochStart(entry.epoch(), offset));
        }
        entries.add(entry);
    }

    Entry entry(long offset) {
        return entries.get((int) offset);
    }

    List<Entry> entries() {
        return entries;
    }

    void flush() {
        flushedEntries = entries.size();
        flushedEpochs = List.copyOf(epochs);
        checkpointedHighWatermark = highWatermark;
    }

    /** After a crash: what the disk still holds. A process kill keeps everything written; power loss does not. */
    void crash(boolean powerLoss) {
        if (powerLoss) {
            if (entries.size() > flushedEntries) {
                noteTruncation(flushedEntries);
                entries.subList(flushedEntries, entries.size()).clear();
            }
            epochs.clear();
            epochs.addAll(flushedEpochs);
            epochs.removeIf(e -> e.startOffset() > entries.size());
            highWatermark = Math.min(checkpointedHighWatermark, entries.size());
        } else {
            // The high watermark checkpoint is written periodically, so after a restart it is usually behind.
            highWatermark = Math.min(checkpointedHighWatermark, entries.size());
        }
    }

    long takeLowestTruncation() {
        long lowest = lowestTruncation;
        lowestTruncation = Long.MAX_VALUE;
        return lowest;
    }

    private void noteTruncation(long offset) {
        lowestTruncation = Math.min(lowestTruncation, offset);
    }

    @Override
    public long logEndOffset() {
        return entries.size();
    }

    @Override
    public long highWatermark() {
        return highWatermark;
    }

    @Override
    public boolean updateHighWatermark(long hw) {
        if (hw > entries.size()) {
            throw new IllegalArgumentException("high watermark " + hw + " above log end " + entries.size());
        }
        if (hw <= highWatermark) {
            return false;
        }
        highWatermark = hw;
        return true;
    }

    @Override
    public int latestEpoch() {
        return epochs.isEmpty() ? -1 : epochs.get(epochs.size() - 1).epoch();
    }

    /** The same answers as {@code LeaderEpochCache#endOffsetFor}. */
    @Override
    public EpochEndOffset endOffsetForEpoch(int requested) {
        if (requested < 0 || epochs.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        int latest = latestEpoch();
        if (requested == latest) {
            return new EpochEndOffset(latest, entries.size());
        }
        if (requested > latest) {
            return EpochEndOffset.UNDEFINED;
        }
        if (requested < epochs.get(0).epoch()) {
            return new EpochEndOffset(requested, epochs.get(0).startOffset());
        }
        EpochStart floor = epochs.get(0);
        for (EpochStart e : epochs) {
            if (e.epoch() > requested) {
                return new EpochEndOffset(floor.epoch(), e.startOffset());
            }
            floor = e;
        }
        throw new IllegalStateException("unreachable");
    }

    @Override
    public void assignEpoch(int epoch, long startOffset) {
        if (!epochs.isEmpty() && epochs.get(epochs.size() - 1).epoch() >= epoch) {
            return;
        }
        epochs.add(new EpochStart(epoch, startOffset));
    }

    @Override
    public boolean truncateTo(long offset) {
        if (offset >= entries.size()) {
            // As PartitionLog: an epoch that starts at the log end has no records and is dropped (issue 11, defect 3).
            epochs.removeIf(e -> e.startOffset() >= entries.size());
            return false;
        }
        noteTruncation(offset);
        entries.subList((int) offset, entries.size()).clear();
        epochs.removeIf(e -> e.startOffset() >= offset);
        highWatermark = Math.min(highWatermark, offset);
        flushedEntries = Math.min(flushedEntries, (int) offset);
        return true;
    }

    @Override
    public String toString() {
        // The tail is where replicas differ; the whole log would drown the trace.
        int from = Math.max(0, entries.size() - 10);
        StringBuilder sb = new StringBuilder(from == 0 ? "[" : "[..." + from + " more ");
        for (int i = from; i < entries.size(); i++) {
            sb.append(i == from ? "" : " ")
                    .append(entries.get(i).value())
                    .append('@')
                    .append(entries.get(i).epoch());
        }
        return sb.append("] hw=")
                .append(highWatermark)
                .append(" epochs=")
                .append(epochs)
                .toString();
    }
}
