package dev.strait.broker.partition;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * For every topic config of Kafka 4.1.1: a valid value other than its default (remote.storage.enable has none
 * here: without tiered storage only false is valid) and a value Kafka refuses, shared by the unit test and the ITs.
 */
public final class KafkaTopicConfigValues {

    /** A valid value for each config, not its default where the config has another valid value. */
    public static final Map<String, String> VALID;

    /** A value Kafka 4.1.1 refuses for each config (a bad type or out of range). */
    public static final Map<String, String> INVALID;

    static {
        Map<String, String> valid = new LinkedHashMap<>();
        Map<String, String> invalid = new LinkedHashMap<>();
        both(valid, invalid, "cleanup.policy", "compact,delete", "shred");
        both(valid, invalid, "delete.retention.ms", "1000", "-1");
        both(valid, invalid, "retention.ms", "3600000", "-2");
        both(valid, invalid, "retention.bytes", "1048576", "lots");
        both(valid, invalid, "segment.bytes", "2097152", "ten");
        both(valid, invalid, "segment.ms", "3600000", "0");
        both(valid, invalid, "max.message.bytes", "2000000", "-1");
        both(valid, invalid, "message.timestamp.type", "LogAppendTime", "BrokerTime");
        both(valid, invalid, "index.interval.bytes", "8192", "-1");
        both(valid, invalid, "min.compaction.lag.ms", "1000", "-1");
        both(valid, invalid, "max.compaction.lag.ms", "600000", "0");
        both(valid, invalid, "message.timestamp.before.max.ms", "86400000", "-1");
        both(valid, invalid, "message.timestamp.after.max.ms", "60000", "soon");
        both(valid, invalid, "min.insync.replicas", "2", "0");
        both(valid, invalid, "unclean.leader.election.enable", "true", "maybe");
        both(valid, invalid, "compression.type", "zstd", "brotli");
        both(valid, invalid, "compression.gzip.level", "5", "10");
        both(valid, invalid, "compression.lz4.level", "10", "0");
        both(valid, invalid, "compression.zstd.level", "-5", "23");
        both(valid, invalid, "preallocate", "true", "yes");
        both(valid, invalid, "file.delete.delay.ms", "1000", "-1");
        both(valid, invalid, "flush.messages", "1000", "0");
        both(valid, invalid, "flush.ms", "1000", "-1");
        both(valid, invalid, "leader.replication.throttled.replicas", "0:0", "0-1");
        both(valid, invalid, "follower.replication.throttled.replicas", "*", "all");
        both(valid, invalid, "local.retention.ms", "1000", "-3");
        both(valid, invalid, "local.retention.bytes", "1000", "-3");
        both(valid, invalid, "remote.storage.enable", "false", "true");
        both(valid, invalid, "remote.log.copy.disable", "true", "1");
        both(valid, invalid, "remote.log.delete.on.disable", "true", "no");
        both(valid, invalid, "min.cleanable.dirty.ratio", "0.2", "1.5");
        both(valid, invalid, "segment.index.bytes", "4096", "3");
        both(valid, invalid, "segment.jitter.ms", "1000", "-1");
        VALID = Map.copyOf(valid);
        INVALID = Map.copyOf(invalid);
    }

    private KafkaTopicConfigValues() {}

    private static void both(
            Map<String, String> valid, Map<String, String> invalid, String name, String good, String bad) {
        valid.put(name, good);
        invalid.put(name, bad);
    }
}
