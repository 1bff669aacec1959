package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofInt;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import java.util.List;

/**
 * The settings of {@link Group#GROUPS} in the table {@link BrokerSettings} gathers: the group coordinator and the
 * offsets topic. Each is declared once, with its default, what it allows and its documentation.
 */
public final class ConsumerGroupSettings {

    public static final Setting<Integer> OFFSETS_TOPIC_NUM_PARTITIONS = ofInt(
                    "offsets.topic.num.partitions",
                    "5",
                    Group.GROUPS,
                    "Partitions of __consumer_offsets; only read when the topic is created.")
            .atLeast(1);

    public static final Setting<Integer> OFFSETS_TOPIC_REPLICATION_FACTOR = ofInt(
                    "offsets.topic.replication.factor",
                    "3",
                    Group.GROUPS,
                    "Replicas of each partition of __consumer_offsets, which is created once that many"
                            + " brokers registered (until then group and offset requests answer"
                            + " COORDINATOR_NOT_AVAILABLE and clients retry). A standalone node only takes 1.")
            .between(1, Short.MAX_VALUE)
            .defaultIs("3 in a cluster, as Kafka; 1 on a standalone node");

    public static final Setting<Integer> OFFSETS_TOPIC_SEGMENT_BYTES = ofInt(
                    "offsets.topic.segment.bytes",
                    "104857600",
                    Group.GROUPS,
                    "The segment size of __consumer_offsets, which is compacted.")
            .atLeast(1);

    public static final Setting<Integer> GROUP_INITIAL_REBALANCE_DELAY_MS = ofInt(
                    "group.initial.rebalance.delay.ms",
                    "3000",
                    Group.GROUPS,
                    "How long the first rebalance of an empty group waits for more members to join.")
            .atLeast(0);

    public static final Setting<Integer> GROUP_MIN_SESSION_TIMEOUT_MS = ofInt(
                    "group.min.session.timeout.ms",
                    "6000",
                    Group.GROUPS,
                    "The shortest session timeout a group member may ask for.")
            .atLeast(0);

    public static final Setting<Integer> GROUP_MAX_SESSION_TIMEOUT_MS = ofInt(
                    "group.max.session.timeout.ms",
                    "1800000",
                    Group.GROUPS,
                    "The longest session timeout a group member may ask for.")
            .atLeast(1);

    public static final Setting<Integer> GROUP_CONSUMER_SESSION_TIMEOUT_MS = ofInt(
                    "group.consumer.session.timeout.ms",
                    "45000",
                    Group.GROUPS,
                    "Consumer groups (group.protocol=consumer, KIP-848): a member that sends no heartbeat for this"
                            + " long leaves the group.")
            .atLeast(1);

    public static final Setting<Integer> GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS = ofInt(
                    "group.consumer.heartbeat.interval.ms",
                    "5000",
                    Group.GROUPS,
                    "Consumer groups (group.protocol=consumer, KIP-848): how often members are told to heartbeat.")
            .atLeast(1);

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            OFFSETS_TOPIC_NUM_PARTITIONS,
            OFFSETS_TOPIC_REPLICATION_FACTOR,
            OFFSETS_TOPIC_SEGMENT_BYTES,
            GROUP_INITIAL_REBALANCE_DELAY_MS,
            GROUP_MIN_SESSION_TIMEOUT_MS,
            GROUP_MAX_SESSION_TIMEOUT_MS,
            GROUP_CONSUMER_SESSION_TIMEOUT_MS,
            GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS);

    private ConsumerGroupSettings() {}
}
