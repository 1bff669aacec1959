package dev.strait.broker.log;

import java.nio.file.Path;

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

    private LogFiles() {
    }

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
