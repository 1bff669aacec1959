package dev.strait.broker.protocol;

import dev.strait.broker.replica.LeaderClient;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * The inter-broker client a follower uses to reach its leader: one blocking socket, one request in flight,
 * kafka-clients' request and response classes for the bytes (Fetch as a replica with {@code ReplicaState(replicaId,
 * -1)}, OffsetForLeaderEpoch v4 with the replica id). No ApiVersions round: both ends are this broker, and the
 * versions used are the ones {@link SupportedApis} serves. Not thread-safe: one fetcher thread owns it.
 */
public final class InterBrokerClient implements LeaderClient {

    private static final short FETCH_VERSION = ApiKeys.FETCH.latestVersion(false);
    private static final short OFFSET_FOR_LEADER_EPOCH_VERSION = 4;
    private static final int MAX_RESPONSE_BYTES = 128 * 1024 * 1024;

    private final int localId;
    /** This broker's current broker epoch, sent in fetches (KIP-903); -1 while it has none. */
    private final LongSupplier localBrokerEpoch;

    private final String clientId;
    private final Socket socket;
    private final WritableByteChannel output;
    private final ReadableByteChannel timedInput;
    private int correlationId;

    private InterBrokerClient(int localId, LongSupplier localBrokerEpoch, Socket socket) throws IOException {
        this.localId = localId;
        this.localBrokerEpoch = localBrokerEpoch;
        this.clientId = "strait-replica-" + localId;
        this.socket = socket;
        this.output = Channels.newChannel(socket.getOutputStream());
        // Reads through the socket's stream honour SO_TIMEOUT; a channel's own reads would not.
        this.timedInput = Channels.newChannel(socket.getInputStream());
    }

    /** A factory connecting with {@code replica.socket.timeout.ms} as connect and read timeout, over plain TCP. */
    public static LeaderClient.Factory factory(int localId, int socketTimeoutMs) {
        return factory(localId, socketTimeoutMs, InterBrokerSecurity.PLAINTEXT);
    }

    /**
     * A factory whose connections speak the inter-broker listener's protocol: TLS (trusting, and with mutual
     * authentication presenting, the listener's own stores) and SASL with this broker's credentials.
     */
    public static LeaderClient.Factory factory(int localId, int socketTimeoutMs, InterBrokerSecurity security) {
        return factory(localId, () -> -1, socketTimeoutMs, security);
    }

    /** As above; fetches carry {@code localBrokerEpoch} as the replica epoch, which ISR expansions name (KIP-903). */
    public static LeaderClient.Factory factory(
            int localId, LongSupplier localBrokerEpoch, int socketTimeoutMs, InterBrokerSecurity security) {
        return (leaderId, host, port) -> {
            Socket socket = new Socket();
            try {
                socket.setTcpNoDelay(true);
                socket.connect(new InetSocketAddress(host, port), socketTimeoutMs);
                socket.setSoTimeout(socketTimeoutMs);
                Socket secured = security.wrap(socket, host, port);
                InterBrokerClient client = new InterBrokerClient(localId, localBrokerEpoch, secured);
                if (security.usesSasl()) {
                    client.authenticate(security);
                }
                return client;
            } catch (IOException | RuntimeException e) {
                socket.close();
                throw e;
            }
        };
    }

    /** SaslHandshake v1 and SaslAuthenticate with this broker's credentials, as a Kafka broker's client does. */
    private void authenticate(InterBrokerSecurity security) throws IOException {
        SaslHandshakeResponse handshake = (SaslHandshakeResponse) send(
                ApiKeys.SASL_HANDSHAKE,
                (short) 1,
                new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(security.mechanism()))
                        .build((short) 1));
        if (handshake.error() != Errors.NONE) {
            throw new IOException("the leader refused SASL mechanism " + security.mechanism() + " (" + handshake.error()
                    + "; it enables " + handshake.data().mechanisms() + ")");
        }
        javax.security.sasl.SaslClient sasl = security.newSaslClient();
        try {
            byte[] token = sasl.hasInitialResponse() ? sasl.evaluateChallenge(new byte[0]) : new byte[0];
            while (true) {
                SaslAuthenticateResponse response = (SaslAuthenticateResponse) send(
                        ApiKeys.SASL_AUTHENTICATE,
                        (short) 2,
                        new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                                .build((short) 2));
                if (response.error() != Errors.NONE) {
                    throw new IOException("the leader refused this broker's credentials (" + security.mechanism()
                            + "): " + response.errorMessage());
                }
                if (sasl.isComplete()) {
                    return;
                }
                token = sasl.evaluateChallenge(response.saslAuthBytes());
                if (sasl.isComplete() && (token == null || token.length == 0)) {
                    return;
                }
            }
        } finally {
            sasl.dispose();
        }
    }

    @Override
    public Map<TopicPartition, FetchedPartition> fetch(
            List<FetchTarget> targets, int maxWaitMs, int minBytes, int maxBytes) throws IOException {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        for (FetchTarget target : targets) {
            data.put(
                    target.topicPartition(),
                    new FetchRequest.PartitionData(
                            target.topicId(),
                            target.fetchOffset(),
                            target.logStartOffset(),
                            target.maxBytes(),
                            Optional.of(target.currentLeaderEpoch())));
            names.put(target.topicId(), target.topicPartition().topic());
        }
        FetchRequest.Builder builder = FetchRequest.Builder.forReplica(
                        FETCH_VERSION, localId, localBrokerEpoch.getAsLong(), maxWaitMs, minBytes, data)
                .setMaxBytes(maxBytes);
        FetchResponse response = (FetchResponse) send(ApiKeys.FETCH, FETCH_VERSION, builder.build(FETCH_VERSION));
        Map<TopicPartition, FetchedPartition> result = new HashMap<>();
        if (response.error() != Errors.NONE) {
            throw new IOException("fetch failed with " + response.error());
        }
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = names.get(topic.topicId());
            if (name == null) {
                continue;
            }
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name, partition.partitionIndex());
                Errors error = Errors.forCode(partition.errorCode());
                ByteBuffer records = error == Errors.NONE ? wholeBatches(partition) : ByteBuffer.allocate(0);
                result.put(
                        tp,
                        new FetchedPartition(
                                map(error), partition.highWatermark(), partition.logStartOffset(), records));
            }
        }
        return result;
    }

    /** The complete batches at the start of a partition's records (the leader may cut the last one). */
    private static ByteBuffer wholeBatches(FetchResponseData.PartitionData partition) {
        if (!(partition.records() instanceof MemoryRecords)) {
            return ByteBuffer.allocate(0);
        }
        MemoryRecords records = (MemoryRecords) partition.records();
        int size = 0;
        for (MutableRecordBatch batch : records.batches()) {
            size += batch.sizeInBytes();
        }
        ByteBuffer buffer = records.buffer().duplicate();
        buffer.limit(buffer.position() + size);
        return buffer.slice();
    }

    @Override
    public Map<TopicPartition, EpochAnswer> offsetsForLeaderEpoch(List<EpochQuery> queries) throws IOException {
        OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
        for (EpochQuery query : queries) {
            OffsetForLeaderTopic topic = topics.find(query.topicPartition().topic());
            if (topic == null) {
                topic = new OffsetForLeaderTopic()
                        .setTopic(query.topicPartition().topic());
                topics.add(topic);
            }
            topic.partitions()
                    .add(new OffsetForLeaderPartition()
                            .setPartition(query.topicPartition().partition())
                            .setCurrentLeaderEpoch(query.currentLeaderEpoch())
                            .setLeaderEpoch(query.epoch()));
        }
        AbstractRequest request = OffsetsForLeaderEpochRequest.Builder.forFollower(topics, localId)
                .build(OFFSET_FOR_LEADER_EPOCH_VERSION);
        OffsetsForLeaderEpochResponse response = (OffsetsForLeaderEpochResponse)
                send(ApiKeys.OFFSET_FOR_LEADER_EPOCH, OFFSET_FOR_LEADER_EPOCH_VERSION, request);
        Map<TopicPartition, EpochAnswer> result = new HashMap<>();
        for (OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic :
                response.data().topics()) {
            for (OffsetForLeaderEpochResponseData.EpochEndOffset partition : topic.partitions()) {
                result.put(
                        new TopicPartition(topic.topic(), partition.partition()),
                        new EpochAnswer(
                                map(Errors.forCode(partition.errorCode())),
                                partition.leaderEpoch(),
                                partition.endOffset()));
            }
        }
        return result;
    }

    private AbstractResponse send(ApiKeys key, short version, AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(key, version, clientId, ++correlationId);
        ByteBuffer payload = request.serializeWithHeader(header);
        ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
        frame.putInt(payload.remaining()).put(payload).flip();
        while (frame.hasRemaining()) {
            output.write(frame);
        }
        socket.getOutputStream().flush();
        ByteBuffer responseSize = ByteBuffer.allocate(4);
        readFully(responseSize);
        int length = responseSize.getInt(0);
        if (length < 0 || length > MAX_RESPONSE_BYTES) {
            throw new IOException("response of " + length + " bytes from the leader");
        }
        ByteBuffer response = ByteBuffer.allocate(length);
        readFully(response);
        response.flip();
        try {
            return AbstractResponse.parseResponse(response, header);
        } catch (RuntimeException e) {
            throw new IOException("cannot parse the " + key + " response", e);
        }
    }

    private void readFully(ByteBuffer buffer) throws IOException {
        try {
            while (buffer.hasRemaining()) {
                if (timedInput.read(buffer) < 0) {
                    throw new EOFException("the leader closed the connection");
                }
            }
        } catch (SocketTimeoutException e) {
            throw new IOException("no response from the leader within replica.socket.timeout.ms", e);
        }
    }

    private static ReplicaError map(Errors error) {
        switch (error) {
            case NONE:
                return ReplicaError.NONE;
            case NOT_LEADER_OR_FOLLOWER:
                return ReplicaError.NOT_LEADER;
            case FENCED_LEADER_EPOCH:
                return ReplicaError.FENCED_EPOCH;
            case UNKNOWN_LEADER_EPOCH:
                return ReplicaError.UNKNOWN_EPOCH;
            case OFFSET_OUT_OF_RANGE:
                return ReplicaError.OFFSET_OUT_OF_RANGE;
            case UNKNOWN_TOPIC_OR_PARTITION:
            case UNKNOWN_TOPIC_ID:
                return ReplicaError.UNKNOWN_PARTITION;
            case TOPIC_AUTHORIZATION_FAILED:
            case CLUSTER_AUTHORIZATION_FAILED:
                return ReplicaError.NOT_AUTHORIZED;
            default:
                return ReplicaError.OTHER;
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing to do
        }
    }

    /** For log lines. */
    @Override
    public String toString() {
        return "InterBrokerClient[" + clientId + " -> " + socket.getRemoteSocketAddress() + "]";
    }
}
