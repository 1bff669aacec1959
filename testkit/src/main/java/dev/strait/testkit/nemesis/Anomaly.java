package dev.strait.testkit.nemesis;

import java.util.Locale;

/**
 * Something the checker found wrong. {@code count} is how many records (or offsets, or events) it concerns, so a
 * lost range of 29 records is one anomaly with count 29; {@code partition} is -1 when it is not about one partition.
 */
public record Anomaly(Type type, int partition, long count, String detail) {

    public enum Type {
        /** An acknowledged record is not in the log at all. */
        LOST,
        /** An acknowledged record is in the log, but not at the offset it was acknowledged at. */
        MOVED,
        /** A record is in the log more than once. */
        DUPLICATED,
        /** Two different values were seen at one offset (acknowledged, read by a consumer, or read back). */
        OFFSET_CONFLICT,
        /** A record a consumer read is gone from the log (the offset is now past its end). */
        VANISHED,
        /** Acknowledged records of one producer are not in the order they were produced in. */
        REORDERED,
        /** A committed group offset went backwards. */
        COMMIT_REGRESSION,
        /** After healing, a partition lacked a live leader or a full ISR, or the nodes' metadata disagreed. */
        UNHEALTHY,
        /** After healing, a partition took no acknowledged write. */
        STUCK,
        /** A node exited although the nemesis did not stop it. */
        CRASHED,
        /** The history could not be read back completely. */
        UNREADABLE
    }

    public String flag() {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public String toString() {
        return flag() + (partition >= 0 ? " p" + partition : "") + " (" + count + "): " + detail;
    }
}
