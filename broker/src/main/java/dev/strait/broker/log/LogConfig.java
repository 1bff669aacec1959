package dev.strait.broker.log;

import java.util.Collection;
import java.util.function.Consumer;

/**
 * The topic configs the log layer acts on, with Kafka's names and defaults. Immutable; a config change means a
 * new instance passed to {@link PartitionLog#updateConfig}. The partition layer's topic config table
 * ({@code partition.TopicConfigSettings}) parses and checks a topic's configs and builds one from the typed values;
 * the constructor checks the bounds again, for configs made in code.
 *
 * @param segmentBytes       {@code segment.bytes}: roll the active segment before it would exceed this size
 * @param segmentMs          {@code segment.ms}: roll the active segment once it is this old
 * @param retentionMs        {@code retention.ms}: delete segments whose largest timestamp is older; -1 = forever
 * @param retentionBytes     {@code retention.bytes}: delete old segments while the log is larger; -1 = no limit
 * @param maxMessageBytes    {@code max.message.bytes}: largest batch accepted on append
 * @param indexIntervalBytes {@code index.interval.bytes}: bytes between offset/time index entries
 * @param timestampType      {@code message.timestamp.type}
 * @param cleanupPolicy      {@code cleanup.policy}: whether retention deletes segments and/or the cleaner compacts
 * @param deleteRetentionMs  {@code delete.retention.ms}: how long a compacted log keeps a tombstone after its
 *                           record timestamp, so that consumers behind by less than this still see the delete
 * @param flushOnAck         {@code flush.on.ack} (Strait's): count records toward the high watermark, and so
 *                           acknowledge acks=all, only once every in-sync replica has fsynced them
 * @param minCompactionLagMs {@code min.compaction.lag.ms}: a segment holding a record younger than this (by its
 *                           largest timestamp) is not compacted yet
 * @param maxCompactionLagMs {@code max.compaction.lag.ms}: a compacted log rolls its active segment once it is this
 *                           old, so that the cleaner, which compacts every closed segment, reaches its records
 * @param timestampBeforeMaxMs {@code message.timestamp.before.max.ms}: how far in the past a CreateTime record's
 *                           timestamp may be when it is produced
 * @param timestampAfterMaxMs {@code message.timestamp.after.max.ms}: how far in the future it may be
 */
public record LogConfig(
        int segmentBytes,
        long segmentMs,
        long retentionMs,
        long retentionBytes,
        int maxMessageBytes,
        int indexIntervalBytes,
        TimestampType timestampType,
        CleanupPolicy cleanupPolicy,
        long deleteRetentionMs,
        boolean flushOnAck,
        long minCompactionLagMs,
        long maxCompactionLagMs,
        long timestampBeforeMaxMs,
        long timestampAfterMaxMs) {

    public static final int DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;
    public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_BYTES = -1;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;
    public static final long DEFAULT_DELETE_RETENTION_MS = 24L * 60 * 60 * 1000;
    public static final long DEFAULT_MIN_COMPACTION_LAG_MS = 0;
    public static final long DEFAULT_MAX_COMPACTION_LAG_MS = Long.MAX_VALUE;
    public static final long DEFAULT_TIMESTAMP_BEFORE_MAX_MS = Long.MAX_VALUE;
    /** Kafka 4.0's default (KIP-1030): a record stamped more than an hour ahead is refused. */
    public static final long DEFAULT_TIMESTAMP_AFTER_MAX_MS = 60L * 60 * 1000;
    /** The topic config name of {@link #flushOnAck}. */
    public static final String FLUSH_ON_ACK = "flush.on.ack";

    /** The values of {@code cleanup.policy}: a set of {@code delete} and {@code compact}, at least one. */
    public enum CleanupPolicy {
        DELETE(true, false),
        COMPACT(false, true),
        COMPACT_DELETE(true, true);

        private final boolean delete;
        private final boolean compact;

        CleanupPolicy(boolean delete, boolean compact) {
            this.delete = delete;
            this.compact = compact;
        }

        public boolean delete() {
            return delete;
        }

        public boolean compact() {
            return compact;
        }

        /**
         * The policy of {@code cleanup.policy}'s list, as the topic config table parsed it ({@code delete},
         * {@code compact} or both, in any order).
         *
         * @throws IllegalArgumentException for an empty list or an unknown policy
         */
        public static CleanupPolicy forPolicies(Collection<String> policies) {
            for (String policy : policies) {
                if (!policy.equals("delete") && !policy.equals("compact")) {
                    throw new IllegalArgumentException(
                            "cleanup.policy " + policies + " is invalid; use delete, compact or compact,delete");
                }
            }
            boolean delete = policies.contains("delete");
            boolean compact = policies.contains("compact");
            if (delete && compact) {
                return COMPACT_DELETE;
            }
            if (compact) {
                return COMPACT;
            }
            if (delete) {
                return DELETE;
            }
            throw new IllegalArgumentException("cleanup.policy must name at least one policy");
        }

        public String configValue() {
            return delete && compact ? "compact,delete" : delete ? "delete" : "compact";
        }
    }

    public LogConfig {
        // Smaller than one batch header would roll on every append; Kafka's own floor is larger, but tests need
        // tiny segments.
        require(
                segmentBytes >= RecordBatchHeader.HEADER_SIZE_BYTES,
                "segment.bytes",
                segmentBytes,
                ">= " + RecordBatchHeader.HEADER_SIZE_BYTES);
        require(segmentMs >= 1, "segment.ms", segmentMs, ">= 1");
        require(retentionMs >= -1, "retention.ms", retentionMs, ">= -1");
        require(retentionBytes >= -1, "retention.bytes", retentionBytes, ">= -1");
        require(
                maxMessageBytes >= RecordBatchHeader.HEADER_SIZE_BYTES,
                "max.message.bytes",
                maxMessageBytes,
                ">= " + RecordBatchHeader.HEADER_SIZE_BYTES);
        require(indexIntervalBytes >= 0, "index.interval.bytes", indexIntervalBytes, ">= 0");
        require(deleteRetentionMs >= 0, "delete.retention.ms", deleteRetentionMs, ">= 0");
        require(minCompactionLagMs >= 0, "min.compaction.lag.ms", minCompactionLagMs, ">= 0");
        require(maxCompactionLagMs >= 1, "max.compaction.lag.ms", maxCompactionLagMs, ">= 1");
        require(timestampBeforeMaxMs >= 0, "message.timestamp.before.max.ms", timestampBeforeMaxMs, ">= 0");
        require(timestampAfterMaxMs >= 0, "message.timestamp.after.max.ms", timestampAfterMaxMs, ">= 0");
        if (timestampType == null) {
            throw new IllegalArgumentException("message.timestamp.type must be set");
        }
        if (cleanupPolicy == null) {
            throw new IllegalArgumentException("cleanup.policy must be set");
        }
    }

    public static LogConfig defaults() {
        return new LogConfig(
                DEFAULT_SEGMENT_BYTES,
                DEFAULT_SEGMENT_MS,
                DEFAULT_RETENTION_MS,
                DEFAULT_RETENTION_BYTES,
                DEFAULT_MAX_MESSAGE_BYTES,
                DEFAULT_INDEX_INTERVAL_BYTES,
                TimestampType.CREATE_TIME,
                CleanupPolicy.DELETE,
                DEFAULT_DELETE_RETENTION_MS,
                false,
                DEFAULT_MIN_COMPACTION_LAG_MS,
                DEFAULT_MAX_COMPACTION_LAG_MS,
                DEFAULT_TIMESTAMP_BEFORE_MAX_MS,
                DEFAULT_TIMESTAMP_AFTER_MAX_MS);
    }

    public LogConfig withFlushOnAck(boolean value) {
        return copy(c -> c.flushOnAck = value);
    }

    public LogConfig withSegmentBytes(int value) {
        return copy(c -> c.segmentBytes = value);
    }

    public LogConfig withSegmentMs(long value) {
        return copy(c -> c.segmentMs = value);
    }

    public LogConfig withRetentionMs(long value) {
        return copy(c -> c.retentionMs = value);
    }

    public LogConfig withRetentionBytes(long value) {
        return copy(c -> c.retentionBytes = value);
    }

    public LogConfig withMaxMessageBytes(int value) {
        return copy(c -> c.maxMessageBytes = value);
    }

    public LogConfig withIndexIntervalBytes(int value) {
        return copy(c -> c.indexIntervalBytes = value);
    }

    public LogConfig withTimestampType(TimestampType value) {
        return copy(c -> c.timestampType = value);
    }

    public LogConfig withCleanupPolicy(CleanupPolicy value) {
        return copy(c -> c.cleanupPolicy = value);
    }

    public LogConfig withDeleteRetentionMs(long value) {
        return copy(c -> c.deleteRetentionMs = value);
    }

    public LogConfig withCompactionLags(long minLagMs, long maxLagMs) {
        return copy(c -> {
            c.minCompactionLagMs = minLagMs;
            c.maxCompactionLagMs = maxLagMs;
        });
    }

    public LogConfig withTimestampLimits(long beforeMaxMs, long afterMaxMs) {
        return copy(c -> {
            c.timestampBeforeMaxMs = beforeMaxMs;
            c.timestampAfterMaxMs = afterMaxMs;
        });
    }

    /** One wither's change on a copy of every field, so a new setting is added in one place, not in each wither. */
    private LogConfig copy(Consumer<Fields> change) {
        Fields c = new Fields(this);
        change.accept(c);
        return c.build();
    }

    private static final class Fields {
        private int segmentBytes;
        private long segmentMs;
        private long retentionMs;
        private long retentionBytes;
        private int maxMessageBytes;
        private int indexIntervalBytes;
        private TimestampType timestampType;
        private CleanupPolicy cleanupPolicy;
        private long deleteRetentionMs;
        private boolean flushOnAck;
        private long minCompactionLagMs;
        private long maxCompactionLagMs;
        private long timestampBeforeMaxMs;
        private long timestampAfterMaxMs;

        Fields(LogConfig from) {
            segmentBytes = from.segmentBytes;
            segmentMs = from.segmentMs;
            retentionMs = from.retentionMs;
            retentionBytes = from.retentionBytes;
            maxMessageBytes = from.maxMessageBytes;
            indexIntervalBytes = from.indexIntervalBytes;
            timestampType = from.timestampType;
            cleanupPolicy = from.cleanupPolicy;
            deleteRetentionMs = from.deleteRetentionMs;
            flushOnAck = from.flushOnAck;
            minCompactionLagMs = from.minCompactionLagMs;
            maxCompactionLagMs = from.maxCompactionLagMs;
            timestampBeforeMaxMs = from.timestampBeforeMaxMs;
            timestampAfterMaxMs = from.timestampAfterMaxMs;
        }

        LogConfig build() {
            return new LogConfig(
                    segmentBytes,
                    segmentMs,
                    retentionMs,
                    retentionBytes,
                    maxMessageBytes,
                    indexIntervalBytes,
                    timestampType,
                    cleanupPolicy,
                    deleteRetentionMs,
                    flushOnAck,
                    minCompactionLagMs,
                    maxCompactionLagMs,
                    timestampBeforeMaxMs,
                    timestampAfterMaxMs);
        }
    }

    /**
     * How old the active segment may get before it rolls: {@code segment.ms}, and for a compacted log at most
     * {@code max.compaction.lag.ms}, as Kafka rolls it.
     */
    public long rollMs() {
        return cleanupPolicy.compact() ? Math.min(segmentMs, maxCompactionLagMs) : segmentMs;
    }

    private static void require(boolean ok, String name, long value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException(name + " must be " + rule + ", got " + value);
        }
    }
}
