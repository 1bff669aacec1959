package dev.strait.broker.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Which leader epoch started at which offset, for OffsetForLeaderEpoch and follower truncation (KIP-101, KIP-279).
 * Entries are sorted with strictly increasing epochs and non-decreasing start offsets (an epoch that wrote nothing
 * shares its start offset with the next one).
 *
 * <p>Every change is written to {@code leader-epoch-checkpoint} before it is visible in memory, atomically (temp
 * file, fsync, rename; see {@link CheckpointFile}), in Kafka's format: a version line {@code 0}, a count line,
 * then one {@code <epoch> <startOffset>} line per entry.
 *
 * <p>Not thread-safe; owned by its {@link PartitionLog}, which the caller locks.
 */
public final class LeaderEpochCache {

    public static final int UNDEFINED_EPOCH = -1;
    public static final long UNDEFINED_EPOCH_OFFSET = -1;
    private static final String VERSION = "0";

    private final Path file;
    private final List<EpochEntry> entries;

    private LeaderEpochCache(Path file, List<EpochEntry> entries) {
        this.file = file;
        this.entries = entries;
    }

    /**
     * Loads the cache from {@code file}, or starts empty if the file does not exist.
     *
     * @throws IOException if the file cannot be read or is malformed (it is written atomically, so a malformed
     *                     file means the disk is damaged, and guessing would risk wrong truncation)
     */
    public static LeaderEpochCache load(Path file) throws IOException {
        List<String> lines = CheckpointFile.read(file);
        List<EpochEntry> entries = new ArrayList<>();
        if (lines != null) {
            try {
                if (lines.size() < 2 || !VERSION.equals(lines.get(0).trim())) {
                    throw new IOException("unsupported header in " + file + ": " + lines);
                }
                int count = Integer.parseInt(lines.get(1).trim());
                if (lines.size() < 2 + count) {
                    throw new IOException(file + " declares " + count + " entries but has " + (lines.size() - 2));
                }
                for (int i = 0; i < count; i++) {
                    String[] parts = lines.get(2 + i).trim().split(" ");
                    EpochEntry entry = new EpochEntry(Integer.parseInt(parts[0]), Long.parseLong(parts[1]));
                    checkOrder(entries, entry);
                    entries.add(entry);
                }
            } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
                throw new IOException("malformed " + file + ": " + e.getMessage(), e);
            } catch (IllegalArgumentException e) {
                throw new IOException("malformed " + file + ": " + e.getMessage(), e);
            }
        }
        return new LeaderEpochCache(file, entries);
    }

    /** A copy of the entries, oldest first. */
    public List<EpochEntry> entries() {
        return List.copyOf(entries);
    }

    /** The latest epoch, or {@link #UNDEFINED_EPOCH} if there is none. */
    public int latestEpoch() {
        return entries.isEmpty()
                ? UNDEFINED_EPOCH
                : entries.get(entries.size() - 1).epoch();
    }

    /** The start offset of the latest epoch, or {@link #UNDEFINED_EPOCH_OFFSET} if there is none. */
    public long latestStartOffset() {
        return entries.isEmpty()
                ? UNDEFINED_EPOCH_OFFSET
                : entries.get(entries.size() - 1).startOffset();
    }

    /**
     * Records that {@code epoch} starts at {@code startOffset}. Re-assigning the latest epoch is a no-op.
     *
     * @return true if an entry was added
     * @throws IllegalArgumentException if the epoch goes backwards or the offset is below the latest start offset
     */
    public boolean assign(int epoch, long startOffset) throws IOException {
        if (epoch < 0 || startOffset < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " and start offset " + startOffset + " must be >= 0");
        }
        if (!entries.isEmpty() && entries.get(entries.size() - 1).epoch() == epoch) {
            return false;
        }
        EpochEntry entry = new EpochEntry(epoch, startOffset);
        checkOrder(entries, entry);
        List<EpochEntry> updated = new ArrayList<>(entries);
        updated.add(entry);
        replaceWith(updated);
        return true;
    }

    private static void checkOrder(List<EpochEntry> entries, EpochEntry next) {
        if (entries.isEmpty()) {
            return;
        }
        EpochEntry latest = entries.get(entries.size() - 1);
        if (next.epoch() <= latest.epoch() || next.startOffset() < latest.startOffset()) {
            throw new IllegalArgumentException("epoch entry " + next + " does not follow " + latest
                    + ": epochs must increase and start offsets must not decrease");
        }
    }

    /**
     * OffsetForLeaderEpoch: for the latest epoch, (epoch, logEndOffset); for an older epoch, the largest known
     * epoch at or below it and the start offset of the next higher epoch; for an epoch below the first known one,
     * (the requested epoch, the first known start offset). UNDEFINED when the requested epoch is negative or above
     * the latest, or the cache is empty.
     *
     * <p>Below the first entry Kafka's {@code LeaderEpochFileCache.endOffsetFor} answers the same: the records of the
     * older epochs are gone from this log (or carry no epoch), and the first offset this log can vouch for is
     * where its first known epoch starts, so a follower truncates there and replicates from it, rather than
     * keeping everything up to its own high watermark unchecked.
     */
    public EpochEndOffset endOffsetFor(int requestedEpoch, long logEndOffset) {
        if (requestedEpoch < 0 || entries.isEmpty()) {
            return EpochEndOffset.UNDEFINED;
        }
        int latest = latestEpoch();
        if (requestedEpoch == latest) {
            return new EpochEndOffset(latest, logEndOffset);
        }
        if (requestedEpoch > latest) {
            return EpochEndOffset.UNDEFINED;
        }
        if (requestedEpoch < entries.get(0).epoch()) {
            return new EpochEndOffset(requestedEpoch, entries.get(0).startOffset());
        }
        EpochEntry floor = entries.get(0);
        for (EpochEntry entry : entries) {
            if (entry.epoch() > requestedEpoch) {
                return new EpochEndOffset(floor.epoch(), entry.startOffset());
            }
            floor = entry;
        }
        throw new IllegalStateException(
                "epoch " + requestedEpoch + " below latest " + latest + " has no higher entry in " + entries);
    }

    /** Removes entries that start at or after {@code endOffset} (the log was truncated to it). */
    public void truncateFromEnd(long endOffset) throws IOException {
        List<EpochEntry> kept = new ArrayList<>();
        for (EpochEntry entry : entries) {
            if (entry.startOffset() < endOffset) {
                kept.add(entry);
            }
        }
        if (kept.size() != entries.size()) {
            replaceWith(kept);
        }
    }

    /**
     * The log now starts at {@code startOffset}: drops entries that ended before it and moves the start of the
     * epoch that contains it up to it.
     */
    public void truncateFromStart(long startOffset) throws IOException {
        int firstKept = 0;
        for (int i = 0; i < entries.size(); i++) {
            if (entries.get(i).startOffset() <= startOffset) {
                firstKept = i;
            }
        }
        if (entries.isEmpty() || (firstKept == 0 && entries.get(0).startOffset() >= startOffset)) {
            return;
        }
        List<EpochEntry> kept = new ArrayList<>(entries.subList(firstKept, entries.size()));
        kept.set(0, new EpochEntry(kept.get(0).epoch(), startOffset));
        replaceWith(kept);
    }

    /** Removes every entry. */
    public void clear() throws IOException {
        if (!entries.isEmpty()) {
            replaceWith(new ArrayList<>());
        }
    }

    private void replaceWith(List<EpochEntry> updated) throws IOException {
        List<String> lines = new ArrayList<>();
        lines.add(VERSION);
        lines.add(Integer.toString(updated.size()));
        for (EpochEntry entry : updated) {
            lines.add(entry.epoch() + " " + entry.startOffset());
        }
        // Durable first, then visible: a failed write leaves memory matching the file.
        CheckpointFile.write(file, lines);
        entries.clear();
        entries.addAll(updated);
    }
}
