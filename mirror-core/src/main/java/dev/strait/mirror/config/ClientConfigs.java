package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns the user's consumer and producer properties into the configurations the engine runs with: it
 * rejects what would break the guarantees silently, fills in defaults tuned for mirroring, and warns
 * when the user weakened a guarantee on purpose.
 */
public final class ClientConfigs {
    private static final Logger LOGGER = LoggerFactory.getLogger(ClientConfigs.class);

    /** Producer settings the mirror's guarantees rest on, with the values that keep them. */
    static final String DEFAULT_LINGER_MS = "20";

    static final String DEFAULT_BATCH_SIZE = String.valueOf(512 * 1024);
    static final String DEFAULT_BUFFER_MEMORY = String.valueOf(64L * 1024 * 1024);
    static final String DEFAULT_COMPRESSION = "lz4";
    /** Kafka's default delivery.timeout.ms; also the longest send() may block. */
    static final long DEFAULT_DELIVERY_TIMEOUT_MS = 120_000;

    private ClientConfigs() {}

    /** Reads a properties file, or explains in one line why it cannot be read. */
    public static Properties load(Path file, String flag) {
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (NoSuchFileException e) {
            throw new ConfigException(flag + " file not found: " + file);
        } catch (IOException | IllegalArgumentException e) {
            throw new ConfigException(flag + " file " + file + " cannot be read: " + e.getMessage());
        }
        return props;
    }

    /** The auto.offset.reset the user asked for, applied by the engine only to never-committed partitions. */
    public static String userOffsetReset(Properties user) {
        String reset = user.getProperty(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")
                .trim()
                .toLowerCase(Locale.ROOT);
        if (reset.equals("smallest")) {
            reset = "earliest";
        } else if (reset.equals("largest")) {
            reset = "latest";
        }
        if (!reset.equals("earliest") && !reset.equals("latest") && !reset.equals("none")) {
            throw new ConfigException(
                    "consumer.config: auto.offset.reset must be earliest, latest or none, not '" + reset + "'");
        }
        return reset;
    }

    public static Properties consumer(Properties user, int streamIndex) {
        requireBootstrap(user, "--consumer.config");
        String groupId = user.getProperty(ConsumerConfig.GROUP_ID_CONFIG);
        if (groupId == null || groupId.isBlank()) {
            throw new ConfigException(
                    "--consumer.config must set group.id: the mirror's streams share one consumer group");
        }
        if (Boolean.parseBoolean(user.getProperty(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")
                .trim())) {
            throw new ConfigException(
                    "--consumer.config sets enable.auto.commit=true: the mirror commits offsets itself, "
                            + "only after the target acknowledged the records; remove the setting");
        }
        userOffsetReset(user);
        Properties props = copy(user);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        // Never let the client reset a position on its own: the engine applies the user's policy to new
        // partitions and reports truncation of committed positions instead of skipping silently.
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.EXCLUDE_INTERNAL_TOPICS_CONFIG, "true");
        // Aborted transactions are not data: read only what the source's producers committed.
        props.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        if (groupProtocol(user) == GroupProtocol.CLASSIC) {
            props.putIfAbsent(
                    ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        }
        // The broker's consumer protocol assigns on the server (group.remote.assignor, passed through as is).
        String instanceId = staticMemberId(user, streamIndex);
        if (instanceId != null) {
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        props.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        props.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(4 * 1024 * 1024));
        // Bounded so that num.streams consumers fit the default 384 MiB heap beside the producer's buffer.
        props.putIfAbsent(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(16 * 1024 * 1024));
        props.putIfAbsent(ConsumerConfig.FETCH_MIN_BYTES_CONFIG, "1");
        props.putIfAbsent(ConsumerConfig.RECEIVE_BUFFER_CONFIG, String.valueOf(1024 * 1024));
        // New topics that match the include pattern are found on a metadata refresh.
        props.putIfAbsent(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "30000");
        String clientId = user.getProperty(ConsumerConfig.CLIENT_ID_CONFIG, "strait-mirror");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + streamIndex);
        return props;
    }

    /**
     * The rebalance protocol of the mirror's consumers ({@code group.protocol}, classic by default), checked against
     * the settings only the other protocol has: kafka-clients would refuse them when the first stream starts, with
     * no word on what to set instead.
     */
    public static GroupProtocol groupProtocol(Properties user) {
        String value = user.getProperty(ConsumerConfig.GROUP_PROTOCOL_CONFIG, GroupProtocol.CLASSIC.name())
                .trim();
        GroupProtocol protocol;
        try {
            protocol = GroupProtocol.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ConfigException(
                    "--consumer.config: group.protocol must be classic or consumer, not '" + value + "'");
        }
        if (protocol == GroupProtocol.CONSUMER) {
            refuse(
                    user,
                    protocol,
                    ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
                    "the broker assigns the partitions: choose its assignor with group.remote.assignor "
                            + "(uniform or range) or leave it to the broker's group.consumer.assignors");
            refuse(
                    user,
                    protocol,
                    ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG,
                    "the broker's group.consumer.session.timeout.ms (or the group's "
                            + "consumer.session.timeout.ms config) sets it");
            refuse(
                    user,
                    protocol,
                    ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                    "the broker's group.consumer.heartbeat.interval.ms (or the group's "
                            + "consumer.heartbeat.interval.ms config) sets it");
        } else {
            refuse(
                    user,
                    protocol,
                    ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG,
                    "it applies only with group.protocol=consumer; the classic protocol takes "
                            + "partition.assignment.strategy");
        }
        return protocol;
    }

    private static void refuse(Properties user, GroupProtocol protocol, String name, String why) {
        if (user.getProperty(name) != null) {
            throw new ConfigException("--consumer.config sets " + name + ", which group.protocol="
                    + protocol.name().toLowerCase(Locale.ROOT) + " does not have: " + why + "; remove it");
        }
    }

    /**
     * The static member id of stream {@code streamIndex}: the user's {@code group.instance.id} with the stream's
     * index, so that the streams of one process never fence each other and a restarted process takes back each
     * stream's partitions at once. Stable as long as num.streams is; each process needs its own base id. Null for
     * dynamic membership.
     */
    public static @Nullable String staticMemberId(Properties user, int streamIndex) {
        String base = user.getProperty(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG);
        if (base == null) {
            return null;
        }
        if (base.isBlank()) {
            throw new ConfigException("--consumer.config sets an empty group.instance.id: give each mirror process "
                    + "an id of its own (each stream adds -<stream index>), or remove it for dynamic membership");
        }
        return base.trim() + "-" + streamIndex;
    }

    public static Properties producer(Properties user) {
        requireBootstrap(user, "--producer.config");
        warnIfWeakened(user);
        Properties props = copy(user);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.putIfAbsent(ProducerConfig.ACKS_CONFIG, "all");
        props.putIfAbsent(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.putIfAbsent(ProducerConfig.RETRIES_CONFIG, String.valueOf(Integer.MAX_VALUE));
        if (Boolean.parseBoolean(props.getProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG))) {
            props.putIfAbsent(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        } else {
            // Without sequence numbers a retried batch lands after the ones sent behind it: one at a time keeps order.
            props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        }
        // A full buffer blocks the streams (back-pressure) rather than failing sends while the target is slow, but
        // never for longer than a record may take to deliver: a target topic that was deleted or shrank under an
        // explicit partition would otherwise block send() for ever, and the mirror hang while it reports healthy.
        props.putIfAbsent(
                ProducerConfig.MAX_BLOCK_MS_CONFIG,
                props.getProperty(
                        ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(DEFAULT_DELIVERY_TIMEOUT_MS)));
        props.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, DEFAULT_LINGER_MS);
        props.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_SIZE);
        props.putIfAbsent(ProducerConfig.BUFFER_MEMORY_CONFIG, DEFAULT_BUFFER_MEMORY);
        props.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, DEFAULT_COMPRESSION);
        props.putIfAbsent(ProducerConfig.SEND_BUFFER_CONFIG, String.valueOf(1024 * 1024));
        props.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "strait-mirror-producer");
        return props;
    }

    /** The settings among {@code client} that a client with these config names understands. */
    public static Properties only(Properties client, Set<String> known) {
        Properties props = new Properties();
        for (String name : client.stringPropertyNames()) {
            if (known.contains(name)) {
                props.put(name, client.getProperty(name));
            }
        }
        return props;
    }

    /** Admin client settings taken from a consumer or producer configuration (connection and security only). */
    public static Properties admin(Properties clientProps, String clientId) {
        Set<String> known = AdminClientConfig.configNames();
        Properties props = new Properties();
        for (String name : clientProps.stringPropertyNames()) {
            if (known.contains(name) && !name.equals(AdminClientConfig.CLIENT_ID_CONFIG)) {
                props.put(name, clientProps.getProperty(name));
            }
        }
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        return props;
    }

    /** Names the user's overrides that weaken the no-loss guarantee; they stay in force, but are logged. */
    static List<String> weakenings(Properties user) {
        List<String> out = new ArrayList<>();
        String acks = user.getProperty(ProducerConfig.ACKS_CONFIG);
        if (acks != null && !acks.trim().equals("all") && !acks.trim().equals("-1")) {
            out.add("acks=" + acks.trim()
                    + " (a record can be lost when a target broker fails after acknowledging it)");
        }
        String idem = user.getProperty(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG);
        if (idem != null && !Boolean.parseBoolean(idem.trim())) {
            out.add("enable.idempotence=false (retries can write duplicates and reorder records)");
        }
        String retries = user.getProperty(ProducerConfig.RETRIES_CONFIG);
        if (retries != null && parseLong(retries, ProducerConfig.RETRIES_CONFIG) < Integer.MAX_VALUE) {
            out.add("retries=" + retries.trim() + " (a transient target error fails the send instead of retrying)");
        }
        String inFlight = user.getProperty(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION);
        if (idem != null
                && !Boolean.parseBoolean(idem.trim())
                && inFlight != null
                && parseLong(inFlight, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION) > 1) {
            out.add("max.in.flight.requests.per.connection=" + inFlight.trim()
                    + " is overridden to 1: without idempotence " + "a retry reorders records otherwise");
        } else if (inFlight != null && parseLong(inFlight, ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION) > 5) {
            out.add("max.in.flight.requests.per.connection=" + inFlight.trim() + " (above 5 order is not kept)");
        }
        return out;
    }

    private static void warnIfWeakened(Properties user) {
        for (String w : weakenings(user)) {
            LOGGER.warn("producer.config weakens the mirror's guarantees: {}", w);
        }
    }

    private static long parseLong(String value, String name) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException("producer.config: " + name + " must be a number, not '" + value + "'");
        }
    }

    private static void requireBootstrap(Properties user, String flag) {
        String bootstrap = user.getProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG);
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new ConfigException(flag + " must set bootstrap.servers (host:port of the "
                    + (flag.contains("consumer") ? "source" : "target") + " cluster)");
        }
    }

    private static Properties copy(Properties user) {
        Properties props = new Properties();
        for (String name : user.stringPropertyNames()) {
            props.put(name, user.getProperty(name).trim());
        }
        return props;
    }
}
