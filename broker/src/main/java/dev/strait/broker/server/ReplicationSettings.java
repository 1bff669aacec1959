package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofBoolean;
import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofLong;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import java.util.List;

/**
 * The settings of {@link Group#REPLICATION} in the table {@link BrokerSettings} gathers: how partitions are
 * replicated and followers fetch and stay in sync. Each is declared once, with its default, what it allows and its
 * documentation.
 */
public final class ReplicationSettings {

    public static final Setting<Integer> DEFAULT_REPLICATION_FACTOR = ofInt(
                    "default.replication.factor",
                    "1",
                    Group.REPLICATION,
                    "Replicas of each partition of a topic created without a replication factor.")
            .atLeast(1);

    public static final Setting<Integer> MIN_INSYNC_REPLICAS = ofInt(
                    "min.insync.replicas",
                    "1",
                    Group.REPLICATION,
                    "The in-sync replicas an acks=all produce needs: with fewer, it is refused with"
                            + " NOT_ENOUGH_REPLICAS. A topic may override it [min.insync.replicas].")
            .atLeast(1);

    public static final Setting<Boolean> UNCLEAN_LEADER_ELECTION_ENABLE = ofBoolean(
                    "unclean.leader.election.enable",
                    "false",
                    Group.REPLICATION,
                    "Only false is supported: a replica outside the in-sync replicas never becomes leader,"
                            + " so an acknowledged record is never given up for availability.")
            .checked(v -> Boolean.TRUE.equals(v)
                    ? "not supported: leaders are elected from the in-sync replicas only"
                    : null);

    public static final Setting<Long> REPLICA_LAG_TIME_MAX_MS = ofLong(
                    "replica.lag.time.max.ms",
                    "30000",
                    Group.REPLICATION,
                    "A follower that has not caught up with the leader's log end for this long leaves the"
                            + " in-sync replicas.")
            .atLeast(1);

    public static final Setting<Integer> MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS = ofInt(
                    "max.incremental.fetch.session.cache.slots",
                    "1000",
                    Group.REPLICATION,
                    "How many incremental fetch sessions (KIP-227) this node keeps: a consumer of many"
                            + " partitions then names only those whose position changed. 0 turns them off"
                            + " (every fetch is a full fetch).")
            .atLeast(0);

    public static final Setting<Integer> REPLICA_FETCH_MAX_BYTES = ofInt(
                    "replica.fetch.max.bytes",
                    "1048576",
                    Group.REPLICATION,
                    "Bytes per partition a follower asks for in one fetch.")
            .atLeast(1);

    public static final Setting<Integer> REPLICA_FETCH_MIN_BYTES = ofInt(
                    "replica.fetch.min.bytes",
                    "1",
                    Group.REPLICATION,
                    "Bytes a follower's fetch waits for, up to replica.fetch.wait.max.ms.")
            .atLeast(1);

    public static final Setting<Integer> REPLICA_FETCH_WAIT_MAX_MS = ofInt(
                    "replica.fetch.wait.max.ms",
                    "500",
                    Group.REPLICATION,
                    "How long the leader may hold a follower's fetch waiting for new records.")
            .atLeast(0);

    public static final Setting<Integer> REPLICA_FETCH_BACKOFF_MS = ofInt(
                    "replica.fetch.backoff.ms",
                    "1000",
                    Group.REPLICATION,
                    "A follower's pause after a failed fetch before it tries again.")
            .atLeast(0);

    public static final Setting<Integer> REPLICA_SOCKET_TIMEOUT_MS = ofInt(
                    "replica.socket.timeout.ms",
                    "30000",
                    Group.REPLICATION,
                    "How long a follower waits for the answer to one of its requests to the leader.")
            .atLeast(1);

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            DEFAULT_REPLICATION_FACTOR,
            MIN_INSYNC_REPLICAS,
            UNCLEAN_LEADER_ELECTION_ENABLE,
            REPLICA_LAG_TIME_MAX_MS,
            MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS,
            REPLICA_FETCH_MAX_BYTES,
            REPLICA_FETCH_MIN_BYTES,
            REPLICA_FETCH_WAIT_MAX_MS,
            REPLICA_FETCH_BACKOFF_MS,
            REPLICA_SOCKET_TIMEOUT_MS);

    private ReplicationSettings() {}
}
