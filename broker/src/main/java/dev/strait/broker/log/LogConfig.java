package dev.strait.broker.log;

import java.util.Map;

/**
 * The topic configs the log layer acts on, with Kafka's names and defaults. Immutable; a config change means a
 * new instance passed to {@link PartitionLog#updateConfig}.
 *
 * @param segmentBytes       {@code segment.bytes}: roll the active segment before it would exceed this size
 * @param segmentMs          {@code segment.ms}: roll the active segment once it is this old
 * @param retentionMs        {@code retention.ms}: delete segments whose largest timestamp is older; -1 = forever
 * @param retentionBytes     {@code retention.bytes}: delete old segments while the log is larger; -1 = no limit
 * @param maxMessageBytes    {@code max.message.bytes}: largest batch accepted on append
 * @param indexIntervalBytes {@code index.interval.bytes}: bytes between offset/time index entries
 * @param timestampType      {@code message.timestamp.type}
 */
public record LogConfig(int segmentBytes, long segmentMs, long retentionMs, long retentionBytes, int maxMessageBytes,
        int indexIntervalBytes, TimestampType timestampType) {

    public static final int DEFAULT_SEGMENT_BYTES = 1024 * 1024 * 1024;
    public static final long DEFAULT_SEGMENT_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_MS = 7L * 24 * 60 * 60 * 1000;
    public static final long DEFAULT_RETENTION_BYTES = -1;
    public static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
    public static final int DEFAULT_INDEX_INTERVAL_BYTES = 4096;

    public LogConfig {
        // Smaller than one batch header would roll on every append; Kafka's own floor is larger, but tests need
        // tiny segments.
        require(segmentBytes >= RecordBatchHeader.HEADER_SIZE_BYTES, "segment.bytes", segmentBytes,
                ">= " + RecordBatchHeader.HEADER_SIZE_BYTES);
        require(segmentMs >= 1, "segment.ms", segmentMs, ">= 1");
        require(retentionMs >= -1, "retention.ms", retentionMs, ">= -1");
        require(retentionBytes >= -1, "retention.bytes", retentionBytes, ">= -1");
        require(maxMessageBytes >= RecordBatchHeader.HEADER_SIZE_BYTES, "max.message.bytes", maxMessageBytes,
                ">= " + RecordBatchHeader.HEADER_SIZE_BYTES);
        require(indexIntervalBytes >= 0, "index.interval.bytes", indexIntervalBytes, ">= 0");
        if (timestampType == null) {
            throw new IllegalArgumentException("message.timestamp.type must be set");
        }
    }

    public static LogConfig defaults() {
        return new LogConfig(DEFAULT_SEGMENT_BYTES, DEFAULT_SEGMENT_MS, DEFAULT_RETENTION_MS,
                DEFAULT_RETENTION_BYTES, DEFAULT_MAX_MESSAGE_BYTES, DEFAULT_INDEX_INTERVAL_BYTES,
                TimestampType.CREATE_TIME);
    }

    /**
     * Defaults overridden by topic configs given by their Kafka names.
     *
     * @throws IllegalArgumentException naming the setting, for an unknown name or a bad value
     */
    public static LogConfig fromTopicConfigs(Map<String, String> configs) {
        LogConfig config = defaults();
        for (Map.Entry<String, String> entry : configs.entrySet()) {
            config = config.with(entry.getKey(), entry.getValue());
        }
        return config;
    }

    private LogConfig with(String name, String value) {
        try {
            switch (name) {
                case "segment.bytes":
                    return withSegmentBytes(Integer.parseInt(value));
                case "segment.ms":
                    return withSegmentMs(Long.parseLong(value));
                case "retention.ms":
                    return withRetentionMs(Long.parseLong(value));
                case "retention.bytes":
                    return withRetentionBytes(Long.parseLong(value));
                case "max.message.bytes":
                    return withMaxMessageBytes(Integer.parseInt(value));
                case "index.interval.bytes":
                    return withIndexIntervalBytes(Integer.parseInt(value));
                case "message.timestamp.type":
                    return withTimestampType(TimestampType.forConfigValue(value));
                default:
                    throw new IllegalArgumentException("unknown log config '" + name + "'");
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a number, got '" + value + "'", e);
        }
    }

    public LogConfig withSegmentBytes(int value) {
        return new LogConfig(value, segmentMs, retentionMs, retentionBytes, maxMessageBytes, indexIntervalBytes,
                timestampType);
    }

    public LogConfig withSegmentMs(long value) {
        return new LogConfig(segmentBytes, value, retentionMs, retentionBytes, maxMessageBytes, indexIntervalBytes,
                timestampType);
    }

    public LogConfig withRetentionMs(long value) {
        return new LogConfig(segmentBytes, segmentMs, value, retentionBytes, maxMessageBytes, indexIntervalBytes,
                timestampType);
    }

    public LogConfig withRetentionBytes(long value) {
        return new LogConfig(segmentBytes, segmentMs, retentionMs, value, maxMessageBytes, indexIntervalBytes,
                timestampType);
    }

    public LogConfig withMaxMessageBytes(int value) {
        return new LogConfig(segmentBytes, segmentMs, retentionMs, retentionBytes, value, indexIntervalBytes,
                timestampType);
    }

    public LogConfig withIndexIntervalBytes(int value) {
        return new LogConfig(segmentBytes, segmentMs, retentionMs, retentionBytes, maxMessageBytes, value,
                timestampType);
    }

    public LogConfig withTimestampType(TimestampType value) {
        return new LogConfig(segmentBytes, segmentMs, retentionMs, retentionBytes, maxMessageBytes,
                indexIntervalBytes, value);
    }

    private static void require(boolean ok, String name, long value, String rule) {
        if (!ok) {
            throw new IllegalArgumentException(name + " must be " + rule + ", got " + value);
        }
    }
}
