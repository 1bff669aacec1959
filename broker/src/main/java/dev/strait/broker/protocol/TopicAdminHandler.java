package dev.strait.broker.protocol;

import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.partition.TopicConfigs;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.AlterConfigsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.jspecify.annotations.Nullable;

/**
 * Topic administration: CreateTopics (replicas placed by the controller or by hand) and DeleteTopics,
 * DescribeConfigs, IncrementalAlterConfigs and the legacy AlterConfigs (topic configs; the broker's are static and
 * read-only), with Kafka's error codes and, where Kafka has them, its messages. The internal offsets topic cannot be
 * deleted. Errors come from {@link ApiErrors}.
 *
 * <p>Thread-safe: stateless; the replica manager serializes topic changes.
 */
final class TopicAdminHandler {

    // DescribeConfigs config sources and types (DescribeConfigsResponse.ConfigSource / ConfigType ids).
    private static final byte SOURCE_DYNAMIC_TOPIC = 1;
    private static final byte SOURCE_STATIC_BROKER = 4;
    private static final byte SOURCE_DEFAULT = 5;
    private static final byte RESOURCE_TOPIC = 2;
    private static final byte RESOURCE_BROKER = 4;

    private final Supplier<BrokerEndpoint> endpoint;
    private final ReplicaManager replicaManager;
    private final int defaultNumPartitions;
    private final Map<String, String> brokerConfigs;
    private final RequestAuthorizer authorizer;

    /**
     * @param defaultNumPartitions {@code num.partitions}
     * @param brokerConfigs        the static broker configs to report in DescribeConfigs
     */
    TopicAdminHandler(
            Supplier<BrokerEndpoint> endpoint,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            Map<String, String> brokerConfigs,
            RequestAuthorizer authorizer) {
        this.authorizer = authorizer;
        this.endpoint = endpoint;
        this.replicaManager = replicaManager;
        this.defaultNumPartitions = defaultNumPartitions;
        this.brokerConfigs = Map.copyOf(brokerConfigs);
    }

    /** CREATE on the cluster or on each topic (else TOPIC_AUTHORIZATION_FAILED), as Kafka. */
    AbstractResponse handleCreateTopicsRequest(RequestContext context, CreateTopicsRequest request, short version) {
        CreateTopicsResponseData data = new CreateTopicsResponseData();
        boolean clusterCreate = authorizer.cluster(context, AclOperation.CREATE);
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        for (CreatableTopic topic : request.data().topics()) {
            if (!seen.add(topic.name())) {
                duplicates.add(topic.name());
            }
        }
        for (CreatableTopic topic : request.data().topics()) {
            CreatableTopicResult result = new CreatableTopicResult().setName(topic.name());
            if (duplicates.contains(topic.name())) {
                setError(result, Errors.INVALID_REQUEST, "duplicate topic in request");
            } else if (!clusterCreate && !authorizer.topic(context, AclOperation.CREATE, topic.name())) {
                setError(result, Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
            } else {
                createTopic(topic, request.data().validateOnly(), version, result);
                if (version >= 5
                        && result.errorCode() == Errors.NONE.code()
                        && !authorizer.topic(context, AclOperation.DESCRIBE_CONFIGS, topic.name())) {
                    result.setConfigs(List.of()).setTopicConfigErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                }
            }
            data.topics().add(result);
        }
        return new CreateTopicsResponse(data);
    }

    private void createTopic(CreatableTopic topic, boolean validateOnly, short version, CreatableTopicResult result) {
        int partitions = topic.numPartitions() == -1 ? defaultNumPartitions : topic.numPartitions();
        List<List<Integer>> assignments = new ArrayList<>();
        if (!topic.assignments().isEmpty()) {
            // Kafka's checks and messages (ReplicationControlManager.createTopic)
            if (topic.replicationFactor() != -1) {
                setError(
                        result,
                        Errors.INVALID_REQUEST,
                        "A manual partition assignment was specified, but replication factor was not set to -1.");
                return;
            }
            if (topic.numPartitions() != -1) {
                setError(
                        result,
                        Errors.INVALID_REQUEST,
                        "A manual partition assignment was specified, but numPartitions was not set to -1.");
                return;
            }
            List<CreatableReplicaAssignment> byIndex = new ArrayList<>(topic.assignments());
            byIndex.sort(java.util.Comparator.comparingInt(CreatableReplicaAssignment::partitionIndex));
            for (int i = 0; i < byIndex.size(); i++) {
                int index = byIndex.get(i).partitionIndex();
                if (i > 0 && index == byIndex.get(i - 1).partitionIndex()) {
                    setError(
                            result,
                            Errors.INVALID_REPLICA_ASSIGNMENT,
                            "Found multiple manual partition assignments for partition " + index);
                    return;
                }
            }
            for (int i = 0; i < byIndex.size(); i++) {
                if (byIndex.get(i).partitionIndex() != i) {
                    setError(
                            result,
                            Errors.INVALID_REPLICA_ASSIGNMENT,
                            "partitions should be a consecutive 0-based integer sequence");
                    return;
                }
                assignments.add(byIndex.get(i).brokerIds());
            }
            partitions = assignments.size();
        }
        if (topic.replicationFactor() == 0 || topic.replicationFactor() < -1) {
            setError(
                    result,
                    Errors.INVALID_REPLICATION_FACTOR,
                    "Replication factor must be larger than 0, or -1 " + "to use the default value.");
            return;
        }
        if (partitions < 1) {
            setError(result, Errors.INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
            return;
        }
        Map<String, String> configs = new HashMap<>();
        for (CreatableTopicConfig config : topic.configs()) {
            configs.put(config.name(), config.value());
        }
        try {
            TopicConfigs.validate(configs);
        } catch (RuntimeException e) {
            setError(result, ApiErrors.forException(e, Errors.INVALID_CONFIG), e.getMessage());
            return;
        }
        try {
            TopicMetadata created = assignments.isEmpty()
                    ? replicaManager.createTopic(
                            topic.name(), partitions, topic.replicationFactor(), configs, validateOnly)
                    : replicaManager.createTopic(topic.name(), assignments, configs, validateOnly);
            short asked = assignments.isEmpty()
                    ? topic.replicationFactor()
                    : (short) assignments.get(0).size();
            short replicationFactor = replicaManager
                    .metadata()
                    .partitionState(created.topicId(), 0)
                    .map(p -> (short) p.replicas().size())
                    .orElse(asked > 0 ? asked : (short) 1);
            result.setErrorCode(Errors.NONE.code())
                    .setTopicId(created.topicId())
                    .setNumPartitions(partitions)
                    .setReplicationFactor(replicationFactor);
            if (version >= 5) {
                List<CreatableTopicConfigs> described = new ArrayList<>();
                for (var entry : replicaManager.effectiveConfigs(created).entrySet()) {
                    described.add(new CreatableTopicConfigs()
                            .setName(entry.getKey())
                            .setValue(entry.getValue())
                            .setReadOnly(false)
                            .setIsSensitive(false)
                            .setConfigSource(configSource(created, entry.getKey())));
                }
                result.setConfigs(described);
            }
        } catch (RuntimeException e) {
            // Bad input left after the checks above is the topic name.
            Errors error = ApiErrors.forException(e, Errors.INVALID_TOPIC_EXCEPTION);
            setError(
                    result,
                    error,
                    error == Errors.TOPIC_ALREADY_EXISTS
                            ? "Topic '" + topic.name() + "' already exists."
                            : e.getMessage());
        }
    }

    private static void setError(CreatableTopicResult result, Errors error, @Nullable String message) {
        result.setErrorCode(error.code()).setErrorMessage(message);
    }

    /** DELETE on each topic (else TOPIC_AUTHORIZATION_FAILED; a topic id it may not DESCRIBE is unknown). */
    AbstractResponse handleDeleteTopicsRequest(RequestContext context, DeleteTopicsRequest request, short version) {
        DeleteTopicsResponseData data = new DeleteTopicsResponseData();
        List<DeleteTopicState> targets = new ArrayList<>();
        if (version >= 6) {
            targets.addAll(request.data().topics());
        } else {
            for (String name : request.data().topicNames()) {
                targets.add(new DeleteTopicState().setName(name));
            }
        }
        for (DeleteTopicState target : targets) {
            DeletableTopicResult result =
                    new DeletableTopicResult().setName(target.name()).setTopicId(target.topicId());
            Optional<TopicMetadata> topic = target.name() != null
                    ? replicaManager.topic(target.name())
                    : replicaManager.topic(target.topicId());
            if (target.name() == null
                    && topic.isPresent()
                    && !authorizer.topic(
                            context, AclOperation.DESCRIBE, topic.get().name())) {
                topic = Optional.empty();
            }
            String name = topic.map(TopicMetadata::name).orElse(target.name());
            if (name != null && !authorizer.topic(context, AclOperation.DELETE, name)) {
                data.responses().add(result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                continue;
            }
            if (topic.isEmpty()) {
                Errors error = target.name() == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                data.responses().add(result.setErrorCode(error.code()));
                continue;
            }
            if (MetadataHandler.isInternal(topic.get().name())) {
                data.responses()
                        .add(result.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                                .setErrorMessage("cannot delete internal topic "
                                        + topic.get().name()));
                continue;
            }
            try {
                replicaManager.deleteTopic(topic.get().name());
                result.setName(topic.get().name())
                        .setTopicId(topic.get().topicId())
                        .setErrorCode(Errors.NONE.code());
            } catch (RuntimeException e) {
                result.setErrorCode(ApiErrors.forException(e).code());
            }
            data.responses().add(result);
        }
        return new DeleteTopicsResponse(data);
    }

    // ---------------------------------------------------------------- Configs

    private byte configSource(TopicMetadata topic, String key) {
        if (topic.configs().containsKey(key)) {
            return SOURCE_DYNAMIC_TOPIC;
        }
        return replicaManager.brokerTopicDefaults().containsKey(key) ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT;
    }

    /** The DescribeConfigs type id (DescribeConfigsResponse.ConfigType) of a topic config; STRING for others. */
    private static byte configType(String key) {
        if (!TopicConfigs.supportedKeys().contains(key)) {
            return 2;
        }
        return switch (TopicConfigs.type(key)) {
            case BOOLEAN -> 1;
            case STRING -> 2;
            case INT -> 3;
            case LONG -> 5;
            case DOUBLE -> 6;
            case LIST -> 7;
            case CLASS -> 8;
            case PASSWORD -> 9;
        };
    }

    /**
     * DESCRIBE_CONFIGS on the topic (else TOPIC_AUTHORIZATION_FAILED) or the cluster for a broker (else
     * CLUSTER_AUTHORIZATION_FAILED). Secrets among the broker's settings (passwords, JAAS configs) are reported
     * as sensitive without their values, as Kafka does.
     */
    AbstractResponse handleDescribeConfigsRequest(RequestContext context, DescribeConfigsRequest request) {
        DescribeConfigsResponseData data = new DescribeConfigsResponseData();
        for (DescribeConfigsResource resource : request.data().resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult()
                    .setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName())
                    .setErrorCode(Errors.NONE.code());
            List<String> keys = resource.configurationKeys();
            Errors refused = refusedConfigAccess(
                    context, resource.resourceType(), resource.resourceName(), AclOperation.DESCRIBE_CONFIGS);
            if (refused != null) {
                result.setErrorCode(refused.code()).setErrorMessage("Authorization failed.");
            } else if (resource.resourceType() == RESOURCE_TOPIC) {
                Optional<TopicMetadata> topic = replicaManager.topic(resource.resourceName());
                if (topic.isEmpty()) {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage("unknown topic '" + resource.resourceName() + "'");
                } else {
                    for (var entry :
                            replicaManager.effectiveConfigs(topic.get()).entrySet()) {
                        if (keys == null || keys.contains(entry.getKey())) {
                            result.configs()
                                    .add(describedConfig(
                                            entry.getKey(),
                                            entry.getValue(),
                                            configSource(topic.get(), entry.getKey())));
                        }
                    }
                }
            } else if (resource.resourceType() == RESOURCE_BROKER) {
                String self = Integer.toString(endpoint.get().nodeId());
                if (!resource.resourceName().isEmpty()
                        && !resource.resourceName().equals(self)) {
                    result.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("this is node " + self + ", not " + resource.resourceName());
                } else {
                    for (var entry : brokerConfigs.entrySet()) {
                        if (keys == null || keys.contains(entry.getKey())) {
                            boolean sensitive = isSensitive(entry.getKey());
                            result.configs()
                                    .add(describedConfig(
                                                    entry.getKey(),
                                                    sensitive ? null : entry.getValue(),
                                                    SOURCE_STATIC_BROKER)
                                            .setReadOnly(true)
                                            .setIsSensitive(sensitive)
                                            .setConfigType(sensitive ? (byte) 9 : (byte) 2));
                        }
                    }
                }
            } else {
                result.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("resource type " + resource.resourceType() + " is not supported");
            }
            data.results().add(result);
        }
        return new DescribeConfigsResponse(data);
    }

    /**
     * Kafka's PASSWORD-typed broker settings, never shown: passwords, keys and JAAS configs (with passwords), and
     * the bootstrap SCRAM credentials (which hold passwords).
     */
    static boolean isSensitive(String key) {
        String lower = key.toLowerCase(java.util.Locale.ROOT);
        return lower.contains("password")
                || lower.endsWith("sasl.jaas.config")
                || lower.endsWith("ssl.keystore.key")
                || lower.endsWith("ssl.keystore.certificate.chain")
                || lower.endsWith("ssl.truststore.certificates")
                || lower.contains("secret")
                || lower.endsWith("scram.credentials");
    }

    private @Nullable Errors refusedConfigAccess(
            RequestContext context, byte resourceType, String name, AclOperation op) {
        if (resourceType == RESOURCE_TOPIC) {
            return authorizer.topic(context, op, name) ? null : Errors.TOPIC_AUTHORIZATION_FAILED;
        }
        if (resourceType == RESOURCE_BROKER) {
            return authorizer.cluster(context, op) ? null : Errors.CLUSTER_AUTHORIZATION_FAILED;
        }
        return null;
    }

    private static DescribeConfigsResourceResult describedConfig(String key, @Nullable String value, byte source) {
        return new DescribeConfigsResourceResult()
                .setName(key)
                .setValue(value)
                .setReadOnly(false)
                .setIsSensitive(false)
                .setConfigSource(source)
                .setConfigType(configType(key));
    }

    /** The outcome of altering one resource's configs: NONE, or the error and its message. */
    private record Altered(Errors error, @Nullable String message) {}

    /**
     * Alters one resource's configs, for both AlterConfigs and IncrementalAlterConfigs: ALTER_CONFIGS on the topic
     * (else TOPIC_AUTHORIZATION_FAILED) or the cluster for a broker (CLUSTER_AUTHORIZATION_FAILED); broker configs
     * are static and refused, except a change that sets none (deletes only), which has nothing to delete; the topic's new overrides, which {@code change} computes from its current ones, are
     * validated and, unless {@code validateOnly}, replace them.
     */
    private Altered alterConfigs(
            RequestContext context,
            byte resourceType,
            String resourceName,
            boolean validateOnly,
            java.util.function.UnaryOperator<Map<String, String>> change) {
        Errors refused = refusedConfigAccess(context, resourceType, resourceName, AclOperation.ALTER_CONFIGS);
        if (refused != null) {
            return new Altered(refused, "Authorization failed.");
        }
        try {
            if (resourceType == RESOURCE_BROKER && change.apply(Map.of()).isEmpty()) {
                // Broker configs are static: there is no dynamic override to delete, so deleting one (as
                // kafka-reassign-partitions --verify does with the replication throttles) changes nothing.
                return new Altered(Errors.NONE, null);
            }
            if (resourceType != RESOURCE_TOPIC) {
                throw new UnsupportedOperationException(
                        "only topic configs can be altered (broker configs are static)");
            }
            TopicMetadata topic = replicaManager
                    .topic(resourceName)
                    .orElseThrow(() -> new UnknownTopicException("unknown topic '" + resourceName + "'"));
            replicaManager.changeTopicConfigs(
                    topic.name(), topic.configs(), change.apply(topic.configs()), validateOnly);
            return new Altered(Errors.NONE, null);
        } catch (RuntimeException e) {
            return new Altered(ApiErrors.forException(e, Errors.INVALID_CONFIG), e.getMessage());
        }
    }

    /** Every config named once, else the request is refused (Kafka cannot tell which value was meant). */
    private static void requireDistinct(Iterable<String> names) {
        Set<String> seen = new HashSet<>();
        for (String name : names) {
            if (!seen.add(name)) {
                throw new UnsupportedOperationException("config '" + name + "' appears twice");
            }
        }
    }

    AbstractResponse handleIncrementalAlterConfigsRequest(
            RequestContext context, IncrementalAlterConfigsRequest request) {
        IncrementalAlterConfigsResponseData data = new IncrementalAlterConfigsResponseData();
        for (AlterConfigsResource resource : request.data().resources()) {
            Altered altered = alterConfigs(
                    context,
                    resource.resourceType(),
                    resource.resourceName(),
                    request.data().validateOnly(),
                    current -> incrementally(current, resource));
            data.responses()
                    .add(new AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(altered.error().code())
                            .setErrorMessage(altered.message()));
        }
        return new IncrementalAlterConfigsResponse(data);
    }

    private static Map<String, String> incrementally(Map<String, String> current, AlterConfigsResource resource) {
        requireDistinct(resource.configs().stream().map(AlterableConfig::name).toList());
        Map<String, String> overrides = new LinkedHashMap<>(current);
        for (AlterableConfig config : resource.configs()) {
            switch (config.configOperation()) {
                case 0: // SET
                    overrides.put(config.name(), config.value());
                    break;
                case 1: // DELETE
                    overrides.remove(config.name());
                    break;
                default: // APPEND, SUBTRACT (list configs, i.e. cleanup.policy): not yet; SET the whole list instead.
                    throw new UnsupportedOperationException(
                            "config operation " + config.configOperation() + " is not supported");
            }
        }
        return overrides;
    }

    /**
     * The legacy AlterConfigs, which older clients and librdkafka send: the configs given become the resource's
     * whole set of dynamic configs (those not named go back to their defaults), checked as IncrementalAlterConfigs
     * checks them.
     */
    AbstractResponse handleAlterConfigsRequest(RequestContext context, AlterConfigsRequest request) {
        AlterConfigsResponseData data = new AlterConfigsResponseData();
        for (AlterConfigsRequestData.AlterConfigsResource resource :
                request.data().resources()) {
            Altered altered = alterConfigs(
                    context,
                    resource.resourceType(),
                    resource.resourceName(),
                    request.data().validateOnly(),
                    current -> {
                        requireDistinct(resource.configs().stream()
                                .map(AlterConfigsRequestData.AlterableConfig::name)
                                .toList());
                        Map<String, String> replacement = new LinkedHashMap<>();
                        resource.configs().forEach(c -> replacement.put(c.name(), c.value()));
                        return replacement;
                    });
            data.responses()
                    .add(new AlterConfigsResponseData.AlterConfigsResourceResponse()
                            .setResourceType(resource.resourceType())
                            .setResourceName(resource.resourceName())
                            .setErrorCode(altered.error().code())
                            .setErrorMessage(altered.message()));
        }
        return new AlterConfigsResponse(data);
    }
}
