package dev.strait.broker.log;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * File names in a partition directory. Segment files are named by their base offset, zero-padded to 20 digits
 * so that a lexical listing is also the offset order (Kafka's convention, so that its tools can read them).
 */
final class LogFiles {

    static final String LOG_SUFFIX = ".log";
    static final String OFFSET_INDEX_SUFFIX = ".index";
    static final String TIME_INDEX_SUFFIX = ".timeindex";
    static final String TEMP_SUFFIX = ".tmp";
    static final String LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint";
    static final String LOG_STATE_CHECKPOINT = "log-state-checkpoint";
    static final String CLEAN_SHUTDOWN_MARKER = ".clean-shutdown";
    /** A compacted segment being written: {@code <first base>-<last base>.cleaned}; incomplete, deleted on open. */
    static final String CLEANED_SUFFIX = ".cleaned";
    /**
     * A complete compacted segment replacing the segments with base offsets {@code first..last}:
     * {@code <first base>-<last base>.swap}. On open, those segments are deleted and it becomes {@code <first>.log}.
     */
    static final String SWAP_SUFFIX = ".swap";

    private LogFiles() {}

    static String fileNamePrefix(long baseOffset) {
        return String.format("%020d", baseOffset);
    }

    static Path logFile(Path dir, long baseOffset) {
        return dir.resolve(fileNamePrefix(baseOffset) + LOG_SUFFIX);
    }

    static Path offsetIndexFile(Path dir, long baseOffset) {
        return dir.resolve(fileNamePrefix(baseOffset) + OFFSET_INDEX_SUFFIX);
    }

    static Path timeIndexFile(Path dir, long baseOffset) {
        return dir.resolve(fileNamePrefix(baseOffset) + TIME_INDEX_SUFFIX);
    }

    static Path cleanedFile(Path dir, long firstBaseOffset, long lastBaseOffset) {
        return dir.resolve(fileNamePrefix(firstBaseOffset) + "-" + fileNamePrefix(lastBaseOffset) + CLEANED_SUFFIX);
    }

    static Path swapFile(Path dir, long firstBaseOffset, long lastBaseOffset) {
        return dir.resolve(fileNamePrefix(firstBaseOffset) + "-" + fileNamePrefix(lastBaseOffset) + SWAP_SUFFIX);
    }

    /** {first, last} base offsets of a {@code <20 digits>-<20 digits>.swap} file name, or null if it is not one. */
    static long @Nullable [] rangeOfSwapFile(String fileName) {
        if (!fileName.endsWith(SWAP_SUFFIX)) {
            return null;
        }
        String range = fileName.substring(0, fileName.length() - SWAP_SUFFIX.length());
        if (range.length() != 41 || range.charAt(20) != '-') {
            return null;
        }
        String first = range.substring(0, 20);
        String last = range.substring(21);
        if (!first.chars().allMatch(Character::isDigit) || !last.chars().allMatch(Character::isDigit)) {
            return null;
        }
        return new long[] {Long.parseLong(first), Long.parseLong(last)};
    }

    /** The base offset of a {@code <20 digits>.log} file name, or -1 if the name is not one. */
    static long baseOffsetOfLogFile(String fileName) {
        if (!fileName.endsWith(LOG_SUFFIX)) {
            return -1;
        }
        String digits = fileName.substring(0, fileName.length() - LOG_SUFFIX.length());
        if (digits.length() != 20 || !digits.chars().allMatch(Character::isDigit)) {
            return -1;
        }
        return Long.parseLong(digits);
    }
}
