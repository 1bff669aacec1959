package dev.strait.mirror.linked;

import static dev.strait.mirror.linked.MirrorTopicAdmin.offsetOf;

import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * The steps failover and failback of mirror topics share to cut partitions of a paused mirror topic without losing a
 * record: wait until the paused topic's ends settle, save each partition's suffix into a topic of its own
 * ({@code <topic>.diverged-<yyyyMMdd-HHmmss>}, each record's old offset in a header), and name the cut the brokers
 * make ({@link MirrorTopicConfigs#TRUNCATE_ID}, {@link MirrorTopicConfigs#TRUNCATE_OFFSETS}). Not thread-safe: one
 * command's thread uses it.
 */
final class MirrorTopicCut {
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC);
    private static final long SETTLE_WAIT_MS = 30_000;
    /** Kafka's longest topic name. */
    private static final int MAX_TOPIC_LENGTH = 249;

    private final Admin admin;
    private final Properties client;
    private final String cluster;
    private final Time time;

    /**
     * @param client  client settings for the same cluster as {@code admin}: the suffix is read and saved with them
     * @param cluster the cluster's name in messages ("target", "old source")
     */
    MirrorTopicCut(Admin admin, Properties client, String cluster, Time time) {
        this.admin = admin;
        this.client = client;
        this.cluster = cluster;
        this.time = time;
    }

    /** The time stamp that names a run's side topics and cut ids, in UTC. */
    static String stamp(Time time) {
        return STAMP.format(Instant.ofEpochMilli(time.milliseconds()));
    }

    /**
     * The side topic a run saves a topic's cut records in: {@code <topic>.diverged-<stamp>}. Where that would pass
     * Kafka's 249 characters, the topic's name is shortened and 8 hex digits of its SHA-256 added, so that two long
     * names sharing a prefix still get two side topics, and a re-run of the same command finds the same one.
     */
    static String sideTopic(String topic, String stamp) {
        String suffix = ".diverged-" + stamp;
        if (topic.length() + suffix.length() <= MAX_TOPIC_LENGTH) {
            return topic + suffix;
        }
        String digest = HexFormat.of().formatHex(sha256(topic), 0, 4);
        String kept = topic.substring(0, MAX_TOPIC_LENGTH - suffix.length() - digest.length() - 1);
        return kept + "-" + digest + suffix;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    /**
     * A cut a run asked of the brokers, as the topic's configs still name it: its id ({@code <kind>-<stamp>}), the
     * stamp that also names the side topic the run saved the records into, and the offset per partition.
     */
    record AskedCut(String id, String stamp, Map<Integer, Long> offsets) {

        /**
         * The cut the configs name if its id is of {@code kind} ("promote", "failback") and its offsets parse; empty
         * otherwise (no cut asked, or one this command did not write).
         */
        static Optional<AskedCut> of(String kind, String id, String offsets) {
            String prefix = kind + "-";
            if (!id.startsWith(prefix) || id.length() == prefix.length()) {
                return Optional.empty();
            }
            return parseOffsets(offsets).map(parsed -> new AskedCut(id, id.substring(prefix.length()), parsed));
        }
    }

    /** {@code partition:offset,...} as {@link #cutConfigs} writes it; empty if blank or malformed. */
    static Optional<Map<Integer, Long>> parseOffsets(String value) {
        if (value.isBlank()) {
            return Optional.empty();
        }
        Map<Integer, Long> parsed = new LinkedHashMap<>();
        for (String entry : value.split(",", -1)) {
            int colon = entry.indexOf(':');
            if (colon < 0) {
                return Optional.empty();
            }
            try {
                int partition = Integer.parseInt(entry.substring(0, colon).trim());
                long offset = Long.parseLong(entry.substring(colon + 1).trim());
                if (parsed.put(partition, offset) != null) {
                    return Optional.empty();
                }
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
        return Optional.of(Map.copyOf(parsed));
    }

    /**
     * Whether {@code sideTopic} exists: a run that asked a cut created it before asking, unless it had nothing to save.
     */
    boolean exists(String sideTopic) {
        return MirrorTopicAdmin.describe(admin, sideTopic, cluster).isPresent();
    }

    /**
     * Records a run saved into each partition of {@code sideTopic} for {@code partitions}: the side topic is created
     * empty, never expires, and only that run writes it, so a partition's end is what was saved there.
     */
    Map<Integer, Long> savedIn(String sideTopic, Iterable<Integer> partitions) {
        List<TopicPartition> side = new ArrayList<>();
        partitions.forEach(p -> side.add(new TopicPartition(sideTopic, p)));
        Map<TopicPartition, Long> ends = MirrorTopicAdmin.offsets(admin, side, OffsetSpec.latest(), false);
        Map<Integer, Long> saved = new LinkedHashMap<>();
        side.forEach(tp -> saved.put(tp.partition(), ends.getOrDefault(tp, -1L)));
        return saved;
    }

    /** The topic configs that ask the brokers to cut each named partition at its offset, once for {@code id}. */
    static Map<String, String> cutConfigs(String id, Map<Integer, Long> offsets) {
        Map<String, String> configs = new LinkedHashMap<>();
        configs.put(MirrorTopicConfigs.TRUNCATE_ID, id);
        configs.put(MirrorTopicConfigs.TRUNCATE_OFFSETS, offsetsValue(offsets));
        return configs;
    }

    /** {@code partition:offset,...}, as {@link #parseOffsets} reads it. */
    static String offsetsValue(Map<Integer, Long> offsets) {
        StringJoiner out = new StringJoiner(",");
        offsets.forEach((p, offset) -> out.add(p + ":" + offset));
        return out.toString();
    }

    /**
     * The pause reaches each broker with the metadata, within moments; a write accepted just before is still
     * arriving. Waits, bounded, until the ends stop moving, so that what is read next is what is cut. (Anything later
     * is still kept: the brokers save every batch they cut.)
     */
    void awaitSettled(List<TopicPartition> partitions) {
        long deadline = time.milliseconds() + SETTLE_WAIT_MS;
        Map<TopicPartition, Long> last = MirrorTopicAdmin.offsets(admin, partitions, OffsetSpec.latest(), false);
        int quiet = 0;
        while (quiet < 3 && time.milliseconds() < deadline) {
            time.sleep(500);
            Map<TopicPartition, Long> now = MirrorTopicAdmin.offsets(admin, partitions, OffsetSpec.latest(), false);
            quiet = now.equals(last) ? quiet + 1 : 0;
            last = now;
        }
    }

    /**
     * Saves the records of each partition from its start to its end ({@code [starts, ends)}) into the same partition
     * of {@code sideTopic}, created (shaped like {@code like}) before the first record is saved.
     *
     * @return records saved per partition that had any offset in its range, in the order of {@code starts}
     * @throws LinkException if the side topic cannot be created or a suffix cannot be saved whole (nothing is cut)
     */
    Map<Integer, Long> saveSuffixes(
            Map<TopicPartition, Long> starts, Map<TopicPartition, Long> ends, String sideTopic, TopicDescription like) {
        Map<Integer, Long> saved = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Long> start : starts.entrySet()) {
            TopicPartition tp = start.getKey();
            long end = offsetOf(ends, tp);
            if (end <= start.getValue()) {
                continue;
            }
            if (saved.isEmpty()) {
                createSideTopic(sideTopic, like);
            }
            try (SuffixCopy copy = new SuffixCopy(client, time)) {
                saved.put(tp.partition(), copy.copy(tp, start.getValue(), end, sideTopic));
            }
        }
        return saved;
    }

    private void createSideTopic(String name, TopicDescription like) {
        short replicas = (short) like.partitions().get(0).replicas().size();
        NewTopic side = new NewTopic(name, like.partitions().size(), replicas)
                .configs(Map.of("retention.ms", "-1", "retention.bytes", "-1", "cleanup.policy", "delete"));
        try {
            admin.createTopics(List.of(side)).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException("cannot create " + name + " on the " + cluster + " to save the records to cut: "
                    + MirrorTopicAdmin.rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while creating " + name);
        }
    }
}
