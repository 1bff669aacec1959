package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.server.EmbeddedCluster;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.CreatePartitionsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicCollection;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DescribeClientQuotasRequest;
import org.apache.kafka.common.requests.DescribeClientQuotasResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Requests built with kafka-clients' classes, on a raw socket, for behaviour the clients do not show directly. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class KafkaApisWireIT {

    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder().nodes(1).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void apiVersionsAdvertisesExactlyTheImplementedApisWithKafkaRanges() throws Exception {
        try (RawClient client = new RawClient()) {
            ApiVersionsResponse response =
                    (ApiVersionsResponse) client.call(new ApiVersionsRequest.Builder().build((short) 4));
            Map<ApiKeys, String> advertised = new HashMap<>();
            for (ApiVersion version : response.data().apiKeys()) {
                advertised.put(ApiKeys.forId(version.apiKey()), version.minVersion() + "-" + version.maxVersion());
            }
            assertThat(response.data().errorCode()).isZero();
            assertThat(advertised)
                    .isEqualTo(Map.ofEntries(
                            Map.entry(ApiKeys.PRODUCE, "0-13"),
                            Map.entry(ApiKeys.FETCH, "4-18"),
                            Map.entry(ApiKeys.LIST_OFFSETS, "1-10"),
                            Map.entry(ApiKeys.METADATA, "0-13"),
                            Map.entry(ApiKeys.API_VERSIONS, "0-4"),
                            Map.entry(ApiKeys.CREATE_TOPICS, "2-7"),
                            Map.entry(ApiKeys.DELETE_TOPICS, "1-6"),
                            Map.entry(ApiKeys.INIT_PRODUCER_ID, "0-5"),
                            Map.entry(ApiKeys.OFFSET_FOR_LEADER_EPOCH, "2-4"),
                            Map.entry(ApiKeys.DESCRIBE_CONFIGS, "1-4"),
                            Map.entry(ApiKeys.INCREMENTAL_ALTER_CONFIGS, "0-1"),
                            Map.entry(ApiKeys.ALTER_CONFIGS, "0-2"),
                            Map.entry(ApiKeys.DESCRIBE_CLUSTER, "0-2"),
                            Map.entry(ApiKeys.ELECT_LEADERS, "0-2"),
                            Map.entry(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, "0-1"),
                            Map.entry(ApiKeys.LIST_PARTITION_REASSIGNMENTS, "0-0"),
                            Map.entry(ApiKeys.FIND_COORDINATOR, "0-6"),
                            Map.entry(ApiKeys.JOIN_GROUP, "0-9"),
                            Map.entry(ApiKeys.SYNC_GROUP, "0-5"),
                            Map.entry(ApiKeys.HEARTBEAT, "0-4"),
                            Map.entry(ApiKeys.LEAVE_GROUP, "0-5"),
                            Map.entry(ApiKeys.OFFSET_COMMIT, "2-9"),
                            Map.entry(ApiKeys.OFFSET_FETCH, "1-9"),
                            Map.entry(ApiKeys.LIST_GROUPS, "0-5"),
                            Map.entry(ApiKeys.DESCRIBE_GROUPS, "0-6"),
                            Map.entry(ApiKeys.DELETE_GROUPS, "0-2"),
                            Map.entry(ApiKeys.OFFSET_DELETE, "0-0"),
                            Map.entry(ApiKeys.TXN_OFFSET_COMMIT, "0-5"),
                            Map.entry(ApiKeys.CONSUMER_GROUP_HEARTBEAT, "0-1"),
                            Map.entry(ApiKeys.CONSUMER_GROUP_DESCRIBE, "0-1"),
                            Map.entry(ApiKeys.CREATE_PARTITIONS, "0-3"),
                            Map.entry(ApiKeys.DELETE_RECORDS, "0-2"),
                            Map.entry(ApiKeys.SASL_HANDSHAKE, "0-1"),
                            Map.entry(ApiKeys.SASL_AUTHENTICATE, "0-2"),
                            Map.entry(ApiKeys.CREATE_ACLS, "1-3"),
                            Map.entry(ApiKeys.DESCRIBE_ACLS, "1-3"),
                            Map.entry(ApiKeys.DELETE_ACLS, "1-3"),
                            Map.entry(ApiKeys.DESCRIBE_USER_SCRAM_CREDENTIALS, "0-0"),
                            Map.entry(ApiKeys.ALTER_USER_SCRAM_CREDENTIALS, "0-0"),
                            Map.entry(ApiKeys.DESCRIBE_TOPIC_PARTITIONS, "0-0"),
                            Map.entry(ApiKeys.DESCRIBE_LOG_DIRS, "1-4"),
                            Map.entry(ApiKeys.DESCRIBE_PRODUCERS, "0-0"),
                            // Transactions; AddPartitionsToTxn up to the clients' v3 (v4+ is the brokers' form).
                            Map.entry(ApiKeys.ADD_PARTITIONS_TO_TXN, "0-3"),
                            Map.entry(ApiKeys.ADD_OFFSETS_TO_TXN, "0-4"),
                            Map.entry(ApiKeys.END_TXN, "0-5"),
                            Map.entry(ApiKeys.WRITE_TXN_MARKERS, "1-1"),
                            Map.entry(ApiKeys.DESCRIBE_TRANSACTIONS, "0-0"),
                            Map.entry(ApiKeys.LIST_TRANSACTIONS, "0-2")));
        }
    }

    @Test
    void anApiThatIsNotAdvertisedIsAnsweredWithUnsupportedVersion() throws Exception {
        try (RawClient client = new RawClient()) {
            // Client quotas are not served.
            DescribeClientQuotasResponse response = (DescribeClientQuotasResponse)
                    client.call(new DescribeClientQuotasRequest.Builder(ClientQuotaFilter.all()).build((short) 0));
            assertThat(response.data().errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
            assertThat(((ApiVersionsResponse) client.call(new ApiVersionsRequest.Builder().build((short) 4)))
                            .data()
                            .errorCode())
                    .isZero();
        }
    }

    @Test
    void findCoordinatorAnswersThisNodeForGroupsAndTransactions() throws Exception {
        try (RawClient client = new RawClient()) {
            FindCoordinatorResponse groups = (FindCoordinatorResponse)
                    client.call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                                    .setKeyType((byte) 0)
                                    .setCoordinatorKeys(List.of("g1", "g2")))
                            .build((short) 6));
            assertThat(groups.data().coordinators()).extracting(c -> c.key()).containsExactly("g1", "g2");
            assertThat(groups.data().coordinators()).allSatisfy(c -> {
                assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(c.nodeId()).isZero();
            });
            FindCoordinatorResponse old = (FindCoordinatorResponse)
                    client.call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                                    .setKeyType((byte) 0)
                                    .setKey("g1"))
                            .build((short) 3));
            assertThat(old.data().errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(old.data().nodeId()).isZero();
            // The first request for a transactional id creates __transaction_state; this node then leads it.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            FindCoordinatorResponse transactions;
            do {
                transactions = (FindCoordinatorResponse)
                        client.call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
                                        .setKeyType((byte) 1)
                                        .setCoordinatorKeys(List.of("tx")))
                                .build((short) 6));
            } while (transactions.data().coordinators().get(0).errorCode() != Errors.NONE.code()
                    && System.nanoTime() < deadline);
            assertThat(transactions.data().coordinators()).singleElement().satisfies(c -> {
                assertThat(c.errorCode()).isEqualTo(Errors.NONE.code());
                assertThat(c.nodeId()).isZero();
            });
        }
    }

    @Test
    void produceWithAcksZeroHasNoResponseAndLaterResponsesStayInOrder() throws Exception {
        try (RawClient client = new RawClient()) {
            createTopic(client, "acks-zero");
            // When: acks=0, then immediately another request on the same connection
            client.sendOnly(produce("acks-zero", (short) 0, records("a")));
            ApiVersionsResponse next =
                    (ApiVersionsResponse) client.call(new ApiVersionsRequest.Builder().build((short) 4));
            // Then: the next frame is the ApiVersions answer (parseResponse checks the correlation id)
            assertThat(next.data().errorCode()).isZero();
            assertThat(latestOffset(client, "acks-zero")).isEqualTo(1);
        }
    }

    @Test
    void produceErrorsAreReportedPerPartition() throws Exception {
        try (RawClient client = new RawClient()) {
            createTopic(client, "produce-errors");
            MemoryRecords corrupt = records("will be corrupted");
            ByteBuffer buffer = corrupt.buffer();
            int last = buffer.limit() - 1;
            buffer.put(last, (byte) (buffer.get(last) ^ 0xff));
            ProduceResponse corruptResponse = (ProduceResponse)
                    client.call(produce("produce-errors", (short) 1, MemoryRecords.readableRecords(buffer)));
            ProduceResponse unknownResponse =
                    (ProduceResponse) client.call(produce("no-such-topic", (short) -1, records("x")));
            assertThat(partitionError(corruptResponse)).isEqualTo(Errors.CORRUPT_MESSAGE.code());
            assertThat(partitionError(unknownResponse)).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            assertThat(latestOffset(client, "produce-errors")).isZero();
        }
    }

    @Test
    void idempotentRetriesAreDeduplicatedAndSequenceGapsAndOldEpochsRefused() throws Exception {
        try (RawClient client = new RawClient()) {
            createTopic(client, "idempotence");
            long pid = initProducerId(client);

            ProduceResponse first = (ProduceResponse)
                    client.call(produce("idempotence", (short) -1, idempotent(pid, (short) 1, 0, "a", "b")));
            ProduceResponse retry = (ProduceResponse)
                    client.call(produce("idempotence", (short) -1, idempotent(pid, (short) 1, 0, "a", "b")));
            ProduceResponse next = (ProduceResponse)
                    client.call(produce("idempotence", (short) -1, idempotent(pid, (short) 1, 2, "c")));
            ProduceResponse gap = (ProduceResponse)
                    client.call(produce("idempotence", (short) -1, idempotent(pid, (short) 1, 7, "d")));
            ProduceResponse oldEpoch = (ProduceResponse)
                    client.call(produce("idempotence", (short) -1, idempotent(pid, (short) 0, 3, "e")));
            ProduceResponse newEpoch = (ProduceResponse)
                    client.call(produce("idempotence", (short) -1, idempotent(pid, (short) 2, 0, "f")));

            assertThat(partitionError(first)).isZero();
            assertThat(baseOffset(first)).isZero();
            assertThat(partitionError(retry)).isZero();
            assertThat(baseOffset(retry)).isZero();
            assertThat(baseOffset(next)).isEqualTo(2);
            assertThat(partitionError(gap)).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code());
            assertThat(partitionError(oldEpoch)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH.code());
            assertThat(partitionError(newEpoch)).isZero();
            assertThat(baseOffset(newEpoch)).isEqualTo(3);
            assertThat(latestOffset(client, "idempotence")).isEqualTo(4);
        }
    }

    private static MemoryRecords idempotent(long producerId, short epoch, int baseSequence, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, producerId, epoch, baseSequence, records);
    }

    private static long baseOffset(ProduceResponse response) {
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .get(0)
                .baseOffset();
    }

    @Test
    void initProducerIdHandsOutIncreasingIdsAndOffsetForLeaderEpochAnswersFromTheEpochCache() throws Exception {
        try (RawClient client = new RawClient()) {
            long first = initProducerId(client);
            long second = initProducerId(client);
            assertThat(second).isGreaterThan(first);

            createTopic(client, "epochs");
            client.call(produce("epochs", (short) 1, records("a", "b", "c")));
            OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
            topics.add(new OffsetForLeaderEpochRequestData.OffsetForLeaderTopic()
                    .setTopic("epochs")
                    .setPartitions(List.of(new OffsetForLeaderEpochRequestData.OffsetForLeaderPartition()
                            .setPartition(0)
                            .setLeaderEpoch(0)
                            .setCurrentLeaderEpoch(0))));
            OffsetsForLeaderEpochResponse response = (OffsetsForLeaderEpochResponse) client.call(
                    OffsetsForLeaderEpochRequest.Builder.forConsumer(topics).build((short) 4));
            var partition =
                    response.data().topics().iterator().next().partitions().get(0);
            assertThat(partition.errorCode()).isZero();
            assertThat(partition.leaderEpoch()).isZero();
            assertThat(partition.endOffset()).isEqualTo(3);
        }
    }

    @Test
    void anEmptyFetchWaitsForMaxWaitAndAnUnknownTopicIdIsReported() throws Exception {
        try (RawClient client = new RawClient()) {
            CreateTopicsResponse created = createTopic(client, "empty-fetch");
            Uuid topicId = created.data().topics().find("empty-fetch").topicId();
            long start = System.nanoTime();
            FetchResponse waited = (FetchResponse) client.call(fetch(topicId, 400));
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            FetchResponseData.PartitionData partition =
                    waited.data().responses().get(0).partitions().get(0);
            assertThat(partition.errorCode()).isZero();
            assertThat(partition.records().sizeInBytes()).isZero();
            assertThat(elapsedMs).isGreaterThanOrEqualTo(350);

            FetchResponse unknown = (FetchResponse) client.call(fetch(Uuid.randomUuid(), 400));
            assertThat(unknown.data().responses().get(0).partitions().get(0).errorCode())
                    .isEqualTo(Errors.UNKNOWN_TOPIC_ID.code());
        }
    }

    @Test
    void fetchReturnsStoredBatchesByTopicIdAndByNameAndReportsOffsetsOutOfRange() throws Exception {
        try (RawClient client = new RawClient()) {
            Uuid topicId = createTopic(client, "fetch-data")
                    .data()
                    .topics()
                    .find("fetch-data")
                    .topicId();
            client.call(produce("fetch-data", (short) 1, records("a", "b")));
            client.call(produce("fetch-data", (short) 1, records("c")));

            FetchResponseData.PartitionData byId = ((FetchResponse) client.call(fetch(topicId, 0, 0)))
                    .data()
                    .responses()
                    .get(0)
                    .partitions()
                    .get(0);
            FetchRequestData byNameData = fetchData(Uuid.ZERO_UUID, 0, 1);
            byNameData.topics().get(0).setTopic("fetch-data");
            FetchResponseData.PartitionData byName = ((FetchResponse)
                            client.call(new FetchRequest.SimpleBuilder(byNameData).build((short) 12)))
                    .data()
                    .responses()
                    .get(0)
                    .partitions()
                    .get(0);
            FetchResponseData.PartitionData outOfRange = ((FetchResponse) client.call(fetch(topicId, 0, 99)))
                    .data()
                    .responses()
                    .get(0)
                    .partitions()
                    .get(0);

            assertThat(values(byId)).containsExactly("a", "b", "c");
            assertThat(byId.highWatermark()).isEqualTo(3);
            assertThat(byId.lastStableOffset()).isEqualTo(3);
            assertThat(byId.logStartOffset()).isZero();
            // the batch containing offset 1 starts at 0, as in Kafka; the client skips the records before 1
            assertThat(values(byName)).containsExactly("a", "b", "c");
            assertThat(outOfRange.errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
        }
    }

    private static List<String> values(FetchResponseData.PartitionData partition) {
        List<String> values = new java.util.ArrayList<>();
        ((MemoryRecords) partition.records())
                .records()
                .forEach(
                        r -> values.add(StandardCharsets.UTF_8.decode(r.value()).toString()));
        return values;
    }

    private static FetchRequest fetch(Uuid topicId, int maxWaitMs) {
        return fetch(topicId, maxWaitMs, 0);
    }

    private static FetchRequest fetch(Uuid topicId, int maxWaitMs, long offset) {
        return new FetchRequest.SimpleBuilder(fetchData(topicId, maxWaitMs, offset)).build((short) 18);
    }

    private static FetchRequestData fetchData(Uuid topicId, int maxWaitMs, long offset) {
        return new FetchRequestData()
                .setMaxWaitMs(maxWaitMs)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionId(0)
                .setSessionEpoch(-1)
                .setTopics(new java.util.ArrayList<>(List.of(new FetchRequestData.FetchTopic()
                        .setTopicId(topicId)
                        .setPartitions(List.of(new FetchRequestData.FetchPartition()
                                .setPartition(0)
                                .setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20))))));
    }

    @Test
    void deleteRecordsAndCreatePartitionsReportPerPartitionErrorsAtEveryVersion() throws Exception {
        try (RawClient client = new RawClient()) {
            createTopic(client, "wire-trim");
            for (short version = 0; version <= 2; version++) {
                List<DeleteRecordsRequestData.DeleteRecordsTopic> topics = new java.util.ArrayList<>();
                topics.add(new DeleteRecordsRequestData.DeleteRecordsTopic()
                        .setName("wire-trim")
                        .setPartitions(List.of(
                                new DeleteRecordsRequestData.DeleteRecordsPartition()
                                        .setPartitionIndex(0)
                                        .setOffset(-5),
                                new DeleteRecordsRequestData.DeleteRecordsPartition()
                                        .setPartitionIndex(7)
                                        .setOffset(0))));
                topics.add(new DeleteRecordsRequestData.DeleteRecordsTopic()
                        .setName("__consumer_offsets")
                        .setPartitions(List.of(new DeleteRecordsRequestData.DeleteRecordsPartition()
                                .setPartitionIndex(0)
                                .setOffset(0))));
                DeleteRecordsResponse response = (DeleteRecordsResponse) client.call(new DeleteRecordsRequest.Builder(
                                new DeleteRecordsRequestData().setTopics(topics).setTimeoutMs(1000))
                        .build(version));
                var trim = response.data().topics().find("wire-trim").partitions();
                assertThat(trim.find(0).errorCode()).isEqualTo(Errors.OFFSET_OUT_OF_RANGE.code());
                assertThat(trim.find(7).errorCode()).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                assertThat(response.data()
                                .topics()
                                .find("__consumer_offsets")
                                .partitions()
                                .find(0)
                                .errorCode())
                        .isEqualTo(Errors.INVALID_TOPIC_EXCEPTION.code());
            }
            for (short version = 0; version <= 3; version++) {
                CreatePartitionsRequestData.CreatePartitionsTopicCollection topics =
                        new CreatePartitionsRequestData.CreatePartitionsTopicCollection();
                topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic()
                        .setName("wire-trim")
                        .setCount(2));
                topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic()
                        .setName("wire-trim")
                        .setCount(3));
                topics.add(new CreatePartitionsRequestData.CreatePartitionsTopic()
                        .setName("wire-none")
                        .setCount(3));
                CreatePartitionsResponse response = (CreatePartitionsResponse)
                        client.call(new CreatePartitionsRequest.Builder(new CreatePartitionsRequestData()
                                        .setTopics(topics)
                                        .setTimeoutMs(1000))
                                .build(version));
                assertThat(response.data().results())
                        .extracting(r -> r.name() + ":" + Errors.forCode(r.errorCode()))
                        .containsExactly(
                                "wire-trim:INVALID_REQUEST",
                                "wire-trim:INVALID_REQUEST",
                                "wire-none:UNKNOWN_TOPIC_OR_PARTITION");
            }
        }
    }

    private static long initProducerId(RawClient client) throws IOException {
        InitProducerIdResponse response = (InitProducerIdResponse) client.call(new InitProducerIdRequest.Builder(
                        new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60000))
                .build((short) 5));
        assertThat(response.data().errorCode()).isZero();
        assertThat(response.data().producerEpoch()).isZero();
        return response.data().producerId();
    }

    private static short partitionError(ProduceResponse response) {
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .get(0)
                .errorCode();
    }

    private static MemoryRecords records(String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    private static ProduceRequest produce(String topic, short acks, MemoryRecords records) {
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(topic)
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(records))));
        return ProduceRequest.builder(new ProduceRequestData()
                        .setAcks(acks)
                        .setTimeoutMs(10000)
                        .setTopicData(topics))
                .build((short) 12);
    }

    private static CreateTopicsResponse createTopic(RawClient client, String name) throws IOException {
        CreatableTopicCollection topics = new CreatableTopicCollection();
        topics.add(new CreatableTopic().setName(name).setNumPartitions(1).setReplicationFactor((short) 1));
        CreateTopicsResponse response = (CreateTopicsResponse) client.call(new CreateTopicsRequest.Builder(
                        new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(10000))
                .build((short) 7));
        assertThat(response.data().topics().find(name).errorCode()).isZero();
        return response;
    }

    private static long latestOffset(RawClient client, String topic) throws IOException {
        ListOffsetsRequestData.ListOffsetsTopic request = new ListOffsetsRequestData.ListOffsetsTopic()
                .setName(topic)
                .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                        .setPartitionIndex(0)
                        .setTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP)));
        ListOffsetsResponse response = (ListOffsetsResponse) client.call(
                ListOffsetsRequest.Builder.forConsumer(false, org.apache.kafka.common.IsolationLevel.READ_UNCOMMITTED)
                        .setTargetTimes(List.of(request))
                        .build((short) 10));
        return response.data().topics().get(0).partitions().get(0).offset();
    }

    /** A blocking one-request-at-a-time client on a plain socket. */
    private static final class RawClient implements AutoCloseable {
        private final Socket socket = new Socket();
        private int correlationId;

        RawClient() throws IOException {
            String[] hostPort = cluster.bootstrapServers().split(":");
            socket.connect(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])), 5000);
            socket.setSoTimeout(10000);
        }

        RequestHeader sendOnly(AbstractRequest request) throws IOException {
            RequestHeader header =
                    new RequestHeader(request.apiKey(), request.version(), "raw-client", correlationId++);
            ByteBuffer buffer = request.serializeWithHeader(header);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(buffer.remaining());
            out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
            out.flush();
            return header;
        }

        AbstractResponse call(AbstractRequest request) throws IOException {
            RequestHeader header = sendOnly(request);
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
