package dev.strait.broker.protocol;

import java.util.EnumSet;
import java.util.Set;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker implements, advertised in ApiVersions with the ranges a Kafka 4.1.1 broker advertises for
 * them (stable versions only; Produce from 0 as Kafka does, KAFKA-18659). Anything else is not advertised.
 */
final class SupportedApis {

    static final Set<ApiKeys> IMPLEMENTED = EnumSet.of(
            ApiKeys.API_VERSIONS,
            ApiKeys.METADATA,
            ApiKeys.PRODUCE,
            ApiKeys.FETCH,
            ApiKeys.LIST_OFFSETS,
            ApiKeys.CREATE_TOPICS,
            ApiKeys.DELETE_TOPICS,
            ApiKeys.DESCRIBE_CONFIGS,
            ApiKeys.INCREMENTAL_ALTER_CONFIGS,
            ApiKeys.ALTER_CONFIGS,
            ApiKeys.DESCRIBE_CLUSTER,
            ApiKeys.INIT_PRODUCER_ID,
            ApiKeys.OFFSET_FOR_LEADER_EPOCH,
            ApiKeys.CREATE_PARTITIONS,
            ApiKeys.DELETE_RECORDS,
            ApiKeys.ELECT_LEADERS,
            ApiKeys.ALTER_PARTITION_REASSIGNMENTS,
            ApiKeys.LIST_PARTITION_REASSIGNMENTS,
            ApiKeys.SASL_HANDSHAKE,
            ApiKeys.SASL_AUTHENTICATE,
            ApiKeys.CREATE_ACLS,
            ApiKeys.DESCRIBE_ACLS,
            ApiKeys.DELETE_ACLS,
            ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS,
            ApiKeys.ALTER_USER_SCRAM_CREDENTIALS,
            ApiKeys.DESCRIBE_TOPIC_PARTITIONS,
            ApiKeys.DESCRIBE_LOG_DIRS,
            ApiKeys.DESCRIBE_PRODUCERS);

    /**
     * The group protocols (classic, and the consumer protocol of KIP-848) and offsets, advertised only when a group
     * coordinator runs.
     */
    static final Set<ApiKeys> GROUP_APIS = EnumSet.of(
            ApiKeys.FIND_COORDINATOR,
            ApiKeys.JOIN_GROUP,
            ApiKeys.SYNC_GROUP,
            ApiKeys.HEARTBEAT,
            ApiKeys.LEAVE_GROUP,
            ApiKeys.OFFSET_COMMIT,
            ApiKeys.OFFSET_FETCH,
            ApiKeys.LIST_GROUPS,
            ApiKeys.DESCRIBE_GROUPS,
            ApiKeys.DELETE_GROUPS,
            ApiKeys.OFFSET_DELETE,
            ApiKeys.TXN_OFFSET_COMMIT,
            ApiKeys.CONSUMER_GROUP_HEARTBEAT,
            ApiKeys.CONSUMER_GROUP_DESCRIBE);

    /** The transaction coordinator's APIs and WriteTxnMarkers, advertised only when a coordinator runs. */
    static final Set<ApiKeys> TRANSACTION_APIS = EnumSet.of(
            ApiKeys.ADD_PARTITIONS_TO_TXN,
            ApiKeys.ADD_OFFSETS_TO_TXN,
            ApiKeys.END_TXN,
            ApiKeys.WRITE_TXN_MARKERS,
            ApiKeys.DESCRIBE_TRANSACTIONS,
            ApiKeys.LIST_TRANSACTIONS);

    /**
     * AddPartitionsToTxn from v4 on is the brokers' batched form (KIP-890's verification), which this broker neither
     * sends nor serves; clients send v3 at most.
     */
    private static final short ADD_PARTITIONS_TO_TXN_MAX_VERSION = 3;

    /** Advertised only by a node of a Raft metadata quorum (a standalone node has no quorum to describe). */
    static final Set<ApiKeys> QUORUM_APIS = EnumSet.of(ApiKeys.DESCRIBE_QUORUM);

    private SupportedApis() {}

    static short minVersion(ApiKeys key) {
        return key == ApiKeys.PRODUCE ? ApiKeys.PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION : key.oldestVersion();
    }

    static short maxVersion(ApiKeys key) {
        if (key == ApiKeys.ADD_PARTITIONS_TO_TXN) {
            return ADD_PARTITIONS_TO_TXN_MAX_VERSION;
        }
        return key.latestVersion(false);
    }

    /** Whether a request of this key and version is implemented (Produce parses only from its oldest version). */
    static boolean isSupported(ApiKeys key, short version) {
        return isSupported(key, version, false);
    }

    static boolean isSupported(ApiKeys key, short version, boolean groups) {
        return isSupported(key, version, groups, false);
    }

    static boolean isSupported(ApiKeys key, short version, boolean groups, boolean quorum) {
        return isSupported(key, version, groups, quorum, false);
    }

    static boolean isSupported(ApiKeys key, short version, boolean groups, boolean quorum, boolean transactions) {
        return (IMPLEMENTED.contains(key)
                        || groups && GROUP_APIS.contains(key)
                        || quorum && QUORUM_APIS.contains(key)
                        || transactions && TRANSACTION_APIS.contains(key))
                && version >= key.oldestVersion()
                && version <= maxVersion(key);
    }

    static ApiVersionCollection advertised() {
        return advertised(false);
    }

    static ApiVersionCollection advertised(boolean groups) {
        return advertised(groups, false);
    }

    static ApiVersionCollection advertised(boolean groups, boolean quorum) {
        return advertised(groups, quorum, false);
    }

    static ApiVersionCollection advertised(boolean groups, boolean quorum, boolean transactions) {
        ApiVersionCollection collection = new ApiVersionCollection();
        Set<ApiKeys> keys = EnumSet.copyOf(IMPLEMENTED);
        if (transactions) {
            keys.addAll(TRANSACTION_APIS);
        }
        if (groups) {
            keys.addAll(GROUP_APIS);
        }
        if (quorum) {
            keys.addAll(QUORUM_APIS);
        }
        for (ApiKeys key : keys) {
            collection.add(new ApiVersion()
                    .setApiKey(key.id)
                    .setMinVersion(minVersion(key))
                    .setMaxVersion(maxVersion(key)));
        }
        return collection;
    }
}
