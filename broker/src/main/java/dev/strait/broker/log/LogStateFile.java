package dev.strait.broker.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * The {@code log-state-checkpoint} file of a partition directory: the offsets that cannot be derived from the
 * segments. Version line {@code 0}, then one {@code <key> <value>} line each for logStartOffset, recoveryPoint and
 * highWatermark, in that order, then the compaction state in any order. Written atomically by
 * {@link CheckpointFile}, so a file that does not parse was damaged outside the broker. Stateless.
 */
final class LogStateFile {

    private static final String VERSION = "0";
    private static final String[] FIXED_KEYS = {"logStartOffset", "recoveryPoint", "highWatermark"};

    /**
     * One checkpoint's content.
     *
     * @param cleanerCheckpoint     compaction: offsets below it were deduplicated by an earlier pass
     * @param oldestKeptTombstoneMs the oldest tombstone the last compaction kept; Long.MAX_VALUE for none
     */
    record State(
            long logStartOffset,
            long recoveryPoint,
            long highWatermark,
            long cleanerCheckpoint,
            long oldestKeptTombstoneMs) {

        /** What a log directory without the file means: a new log at offset 0. */
        static final State INITIAL = new State(0, 0, 0, 0, Long.MAX_VALUE);
    }

    private LogStateFile() {}

    static Path path(Path dir) {
        return dir.resolve(LogFiles.LOG_STATE_CHECKPOINT);
    }

    /**
     * The state checkpointed in {@code dir}, or {@link State#INITIAL} if there is none.
     *
     * @throws IOException if the file cannot be read or does not parse
     */
    static State read(Path dir) throws IOException {
        Path file = path(dir);
        List<String> lines = CheckpointFile.read(file);
        if (lines == null) {
            return State.INITIAL;
        }
        try {
            if (lines.size() < 4 || !VERSION.equals(lines.get(0).trim())) {
                throw new IOException("unsupported content in " + file + ": " + lines);
            }
            long[] fixed = new long[FIXED_KEYS.length];
            for (int i = 0; i < FIXED_KEYS.length; i++) {
                String[] parts = lines.get(i + 1).trim().split(" ");
                if (!FIXED_KEYS[i].equals(parts[0])) {
                    throw new IOException("expected " + FIXED_KEYS[i] + " on line " + (i + 2) + " of " + file);
                }
                fixed[i] = Long.parseLong(parts[1]);
            }
            // Compaction state, added later: older files lack it, which means nothing compacted and no tombstone kept.
            long cleanerCheckpoint = State.INITIAL.cleanerCheckpoint();
            long oldestKeptTombstoneMs = State.INITIAL.oldestKeptTombstoneMs();
            for (int i = 4; i < lines.size(); i++) {
                String[] parts = lines.get(i).trim().split(" ");
                if (parts[0].equals("cleanerCheckpoint")) {
                    cleanerCheckpoint = Long.parseLong(parts[1]);
                } else if (parts[0].equals("oldestKeptTombstoneMs")) {
                    oldestKeptTombstoneMs = Long.parseLong(parts[1]);
                }
            }
            return new State(fixed[0], fixed[1], fixed[2], cleanerCheckpoint, oldestKeptTombstoneMs);
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
            throw new IOException("malformed " + file + ": " + e.getMessage(), e);
        }
    }

    /** Replaces the checkpoint in {@code dir} atomically and durably. */
    static void write(Path dir, State state) throws IOException {
        CheckpointFile.write(
                path(dir),
                List.of(
                        VERSION,
                        "logStartOffset " + state.logStartOffset(),
                        "recoveryPoint " + state.recoveryPoint(),
                        "highWatermark " + state.highWatermark(),
                        "cleanerCheckpoint " + state.cleanerCheckpoint(),
                        "oldestKeptTombstoneMs " + state.oldestKeptTombstoneMs()));
    }
}
