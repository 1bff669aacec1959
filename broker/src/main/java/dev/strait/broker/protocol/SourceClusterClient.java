package dev.strait.broker.protocol;

import dev.strait.broker.link.SourceClient;
import dev.strait.broker.link.SourceLinks;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;

/**
 * A mirror fetcher's connection to one source broker: ApiVersions once, then Metadata, Fetch as a consumer at
 * read_uncommitted (so every stored batch comes back as stored: compressed, with transaction markers and aborted
 * records) and ListOffsets EARLIEST, each at the highest version both ends speak. Not thread-safe.
 */
public final class SourceClusterClient implements SourceClient {
    /** Topic ids in Metadata, which detect a source topic deleted and re-created. */
    private static final short MIN_METADATA_VERSION = 10;

    private static final short MIN_FETCH_VERSION = 4;
    private static final short MIN_LIST_OFFSETS_VERSION = 1;

    private final WireChannel channel;
    private final short metadataVersion;
    private final short fetchVersion;
    private final short listOffsetsVersion;

    private SourceClusterClient(WireChannel channel) throws IOException {
        this.channel = channel;
        ApiVersionsResponseData versions = apiVersions();
        this.metadataVersion = agreed(versions, ApiKeys.METADATA, MIN_METADATA_VERSION);
        this.fetchVersion = agreed(versions, ApiKeys.FETCH, MIN_FETCH_VERSION);
        this.listOffsetsVersion = agreed(versions, ApiKeys.LIST_OFFSETS, MIN_LIST_OFFSETS_VERSION);
    }

    /** Connects over plain TCP with {@code timeoutMs} as connect and read timeout. */
    public static SourceClient.Factory factory(int localId, int timeoutMs) {
        return factory(localId, timeoutMs, InterBrokerSecurity.PLAINTEXT);
    }

    /**
     * The connector of a node's mirror fetcher: plain TCP for a source named by bootstrap servers, a link's client
     * security otherwise.
     */
    public static SourceLinks.Connector connector(int localId, int timeoutMs) {
        return (name, settings) -> settings.isEmpty()
                ? factory(localId, timeoutMs)
                : factory(localId, timeoutMs, InterBrokerSecurity.forClient(name, settings));
    }

    /** Connects with {@code timeoutMs} as connect and read timeout, secured as {@code security} says. */
    static SourceClient.Factory factory(int localId, int timeoutMs, InterBrokerSecurity security) {
        return (host, port) -> {
            WireChannel channel = WireChannel.connect(
                    "strait-mirror-" + localId, "source broker " + host + ":" + port, host, port, timeoutMs, security);
            try {
                return new SourceClusterClient(channel);
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
        };
    }

    private ApiVersionsResponseData apiVersions() throws IOException {
        short version = ApiKeys.API_VERSIONS.latestVersion();
        ApiVersionsResponse response = (ApiVersionsResponse)
                channel.send(ApiKeys.API_VERSIONS, version, new ApiVersionsRequest.Builder().build(version));
        if (response.data().errorCode() == Errors.UNSUPPORTED_VERSION.code()) {
            // An older broker answers with the versions it has; ask again at v0, which every broker speaks.
            response = (ApiVersionsResponse)
                    channel.send(ApiKeys.API_VERSIONS, (short) 0, new ApiVersionsRequest.Builder().build((short) 0));
        }
        if (response.data().errorCode() != Errors.NONE.code()) {
            throw new IOException(
                    "ApiVersions failed with " + Errors.forCode(response.data().errorCode()));
        }
        return response.data();
    }

    private static short agreed(ApiVersionsResponseData versions, ApiKeys key, short minimum) throws IOException {
        ApiVersionsResponseData.ApiVersion theirs = versions.apiKeys().find(key.id);
        short ours = key.latestVersion();
        if (theirs == null || theirs.maxVersion() < minimum || theirs.minVersion() > ours) {
            throw new IOException("the source broker does not speak " + key.name + " version " + minimum + " to "
                    + ours
                    + (theirs == null
                            ? ""
                            : " (it speaks " + theirs.minVersion() + " to " + theirs.maxVersion() + ")"));
        }
        return (short) Math.min(ours, theirs.maxVersion());
    }

    @Override
    public Metadata metadata(Collection<String> topics) throws IOException {
        MetadataResponse response = (MetadataResponse) channel.send(
                ApiKeys.METADATA,
                metadataVersion,
                new MetadataRequest.Builder(new ArrayList<>(topics), false).build(metadataVersion));
        Map<Integer, Broker> brokers = new HashMap<>();
        for (MetadataResponseData.MetadataResponseBroker broker :
                response.data().brokers()) {
            brokers.put(broker.nodeId(), new Broker(broker.nodeId(), broker.host(), broker.port()));
        }
        Map<String, TopicInfo> result = new LinkedHashMap<>();
        for (MetadataResponseData.MetadataResponseTopic topic : response.data().topics()) {
            List<PartitionInfo> partitions = new ArrayList<>();
            for (MetadataResponseData.MetadataResponsePartition partition : topic.partitions()) {
                partitions.add(new PartitionInfo(
                        partition.partitionIndex(),
                        partition.leaderId(),
                        partition.leaderEpoch(),
                        map(Errors.forCode(partition.errorCode()))));
            }
            partitions.sort(java.util.Comparator.comparingInt(PartitionInfo::partition));
            result.put(
                    topic.name(),
                    new TopicInfo(
                            topic.name(),
                            topic.topicId() == null ? Uuid.ZERO_UUID : topic.topicId(),
                            map(Errors.forCode(topic.errorCode())),
                            List.copyOf(partitions)));
        }
        return new Metadata(Map.copyOf(brokers), result);
    }

    @Override
    public Map<TopicPartition, Fetched> fetch(List<FetchTarget> targets, int maxWaitMs, int maxBytes)
            throws IOException {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        for (FetchTarget target : targets) {
            data.put(
                    target.source(),
                    new FetchRequest.PartitionData(
                            target.topicId(),
                            target.fetchOffset(),
                            -1L,
                            target.maxBytes(),
                            Optional.of(target.currentLeaderEpoch())));
            names.put(target.topicId(), target.source().topic());
        }
        FetchRequest.Builder builder = FetchRequest.Builder.forConsumer(fetchVersion, maxWaitMs, 1, data)
                .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
                .setMaxBytes(maxBytes);
        FetchResponse response = (FetchResponse) channel.send(ApiKeys.FETCH, fetchVersion, builder.build(fetchVersion));
        if (response.error() != Errors.NONE) {
            throw new IOException("fetch failed with " + response.error());
        }
        Map<TopicPartition, Fetched> result = new HashMap<>();
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            // Topic ids from version 13 on, names before.
            String name = fetchVersion >= 13 ? names.get(topic.topicId()) : topic.topic();
            if (name == null) {
                continue;
            }
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                Errors error = Errors.forCode(partition.errorCode());
                ByteBuffer records = error == Errors.NONE ? FetchedBatches.whole(partition) : ByteBuffer.allocate(0);
                result.put(
                        new TopicPartition(name, partition.partitionIndex()),
                        new Fetched(map(error), partition.highWatermark(), partition.logStartOffset(), records));
            }
        }
        return result;
    }

    @Override
    public Map<TopicPartition, Long> logStartOffsets(Map<TopicPartition, Integer> currentLeaderEpochs)
            throws IOException {
        Map<String, ListOffsetsTopic> topics = new LinkedHashMap<>();
        for (Map.Entry<TopicPartition, Integer> entry : currentLeaderEpochs.entrySet()) {
            topics.computeIfAbsent(entry.getKey().topic(), t -> new ListOffsetsTopic().setName(t))
                    .partitions()
                    .add(new ListOffsetsPartition()
                            .setPartitionIndex(entry.getKey().partition())
                            .setCurrentLeaderEpoch(entry.getValue())
                            .setTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP));
        }
        ListOffsetsResponse response = (ListOffsetsResponse) channel.send(
                ApiKeys.LIST_OFFSETS,
                listOffsetsVersion,
                ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                        .setTargetTimes(new ArrayList<>(topics.values()))
                        .build(listOffsetsVersion));
        Map<TopicPartition, Long> result = new HashMap<>();
        for (ListOffsetsResponseData.ListOffsetsTopicResponse topic :
                response.data().topics()) {
            for (ListOffsetsResponseData.ListOffsetsPartitionResponse partition : topic.partitions()) {
                boolean ok = partition.errorCode() == Errors.NONE.code();
                result.put(new TopicPartition(topic.name(), partition.partitionIndex()), ok ? partition.offset() : -1L);
            }
        }
        return result;
    }

    private static SourceError map(Errors error) {
        switch (error) {
            case NONE:
                return SourceError.NONE;
            case NOT_LEADER_OR_FOLLOWER:
            case LEADER_NOT_AVAILABLE:
                return SourceError.NOT_LEADER;
            case FENCED_LEADER_EPOCH:
                return SourceError.FENCED_EPOCH;
            case UNKNOWN_LEADER_EPOCH:
                return SourceError.UNKNOWN_EPOCH;
            case OFFSET_OUT_OF_RANGE:
                return SourceError.OFFSET_OUT_OF_RANGE;
            case UNKNOWN_TOPIC_OR_PARTITION:
            case UNKNOWN_TOPIC_ID:
            case INCONSISTENT_TOPIC_ID:
                return SourceError.UNKNOWN_TOPIC;
            case TOPIC_AUTHORIZATION_FAILED:
            case CLUSTER_AUTHORIZATION_FAILED:
                return SourceError.NOT_AUTHORIZED;
            default:
                return SourceError.OTHER;
        }
    }

    @Override
    public void close() {
        channel.close();
    }

    @Override
    public String toString() {
        return "SourceClusterClient[" + channel + "]";
    }
}
