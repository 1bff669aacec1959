package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofLong;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import java.util.List;

/**
 * The settings of {@link Group#TRANSACTIONS} in the table {@link BrokerSettings} gathers: the transaction
 * coordinator and its topic {@code __transaction_state}, with Kafka's names.
 */
public final class TransactionSettings {

    public static final Setting<Integer> TRANSACTION_STATE_LOG_NUM_PARTITIONS = ofInt(
                    "transaction.state.log.num.partitions",
                    "5",
                    Group.TRANSACTIONS,
                    "Partitions of __transaction_state, created when the first transactional producer looks for its"
                            + " coordinator; only read then.")
            .atLeast(1);

    public static final Setting<Integer> TRANSACTION_STATE_LOG_REPLICATION_FACTOR = ofInt(
                    "transaction.state.log.replication.factor",
                    "3",
                    Group.TRANSACTIONS,
                    "Replicas of each partition of __transaction_state; until that many brokers registered,"
                            + " transactional producers are told COORDINATOR_NOT_AVAILABLE and retry. A standalone"
                            + " node only takes 1.")
            .between(1, Short.MAX_VALUE)
            .defaultIs("3 in a cluster, as Kafka; 1 on a standalone node");

    public static final Setting<Integer> TRANSACTION_MAX_TIMEOUT_MS = ofInt(
                    "transaction.max.timeout.ms",
                    "900000",
                    Group.TRANSACTIONS,
                    "The longest transaction.timeout.ms a producer may ask for; a longer one is refused at"
                            + " initTransactions().")
            .atLeast(1);

    public static final Setting<Long> TRANSACTIONAL_ID_EXPIRATION_MS = ofLong(
                    "transactional.id.expiration.ms",
                    "604800000",
                    Group.TRANSACTIONS,
                    "How long a transactional id with no transaction running is kept after its last use.")
            .atLeast(1L);

    public static final Setting<Integer> TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS = ofInt(
                    "transaction.abort.timed.out.transaction.cleanup.interval.ms",
                    "10000",
                    Group.TRANSACTIONS,
                    "How often the coordinator aborts transactions that ran past their timeout.")
            .atLeast(1);

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            TRANSACTION_STATE_LOG_NUM_PARTITIONS,
            TRANSACTION_STATE_LOG_REPLICATION_FACTOR,
            TRANSACTION_MAX_TIMEOUT_MS,
            TRANSACTIONAL_ID_EXPIRATION_MS,
            TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS);

    private TransactionSettings() {}
}
