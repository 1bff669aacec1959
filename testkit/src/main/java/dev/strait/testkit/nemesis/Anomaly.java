package dev.strait.testkit.nemesis;

import java.util.Locale;

/**
 * Something the checker found wrong. {@code count} is how many records (or offsets, or events) it concerns, so a
 * lost range of 29 records is one anomaly with count 29; {@code partition} is -1 when it is not about one partition.
 */
public record Anomaly(Type type, int partition, long count, String detail, boolean counted) {

    /** An anomaly counted as its type says. */
    public Anomaly(Type type, int partition, long count, String detail) {
        this(type, partition, count, detail, type.counted());
    }

    /** The same finding reported but not counted (a system's documented behaviour, see the checker's rules). */
    public Anomaly excused() {
        return new Anomaly(type, partition, count, detail, false);
    }

    public enum Type {
        /** An acknowledged record is not in the log at all. */
        LOST,
        /** An acknowledged record is in the log, but not at the offset it was acknowledged at. */
        MOVED,
        /** A record is in the log more than once. */
        DUPLICATED,
        /** Two different values were seen at one offset (acknowledged, read by a consumer, or read back). */
        OFFSET_CONFLICT,
        /** A record a consumer read is gone from the log (its offset is now past the end, or a gap). */
        VANISHED,
        /** Acknowledged records of one producer are not in the order they were produced in. */
        REORDERED,
        /**
         * A committed group offset went backwards: an acknowledged commit below one acknowledged before it began, or
         * the group's final committed offset below an acknowledged commit.
         */
        COMMIT_REGRESSION,
        /**
         * An OffsetFetch answered less than a commit acknowledged (or an offset read) before it began. Counted for
         * Strait; for Apache Kafka reported but not counted ({@link Anomaly#excused()}): Kafka 4.1.1 does this by
         * design for a moment after its group coordinator moves (see the package documentation).
         */
        STALE_OFFSET_READ,
        /**
         * After healing, a replica's log below the high watermark differs from the leader's (a record missing, extra,
         * or with another offset, key, value or headers).
         */
        REPLICA_DIVERGED,
        /** After healing, a partition lacked a live leader or a full ISR, or the nodes' metadata disagreed. */
        UNHEALTHY,
        /**
         * After healing, a partition took no acknowledged write; or (transactional workload) the client neither
         * acknowledged nor failed a send within its delivery timeout, or a producer could not finish a transaction
         * within 90 s after the workload stopped.
         */
        STUCK,
        /** A node exited although the nemesis did not stop it. */
        CRASHED,
        /** The history could not be read back completely. */
        UNREADABLE,
        /** Transactional workload: a read_committed read returned a record of an aborted transaction. */
        ABORTED_READ,
        /** Transactional workload: a record of a committed transaction is missing from the final read_committed read. */
        COMMITTED_MISSING,
        /**
         * Transactional workload: a committed transaction, or one whose commit outcome is unknown, is partly visible
         * to read_committed (some of its records, not all).
         */
        PARTIAL_TRANSACTION,
        /** Transactional workload: a read returned a record that no transaction wrote, or in another partition. */
        PHANTOM_READ,
        /**
         * Transactional workload: after healing and after every producer stopped, a partition's last stable offset
         * stayed below its high watermark (a transaction left open).
         */
        HANGING_TRANSACTION;

        private final boolean counted;

        Type() {
            this(true);
        }

        Type(boolean counted) {
            this.counted = counted;
        }

        /** Whether it is a verdict (counted as an anomaly) or only an observation. */
        public boolean counted() {
            return counted;
        }
    }

    public String flag() {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public String toString() {
        return flag() + (partition >= 0 ? " p" + partition : "") + " (" + count + "): " + detail;
    }
}
