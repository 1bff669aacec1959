package dev.strait.broker.server;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A blocking client on a plain socket for requests built with kafka-clients' classes, one at a time or sent
 * ahead and read later, for schedules that need exact control over what a producer sends and when.
 */
final class RawKafkaClient implements AutoCloseable {

    private final Socket socket = new Socket();
    private int correlationId;

    RawKafkaClient(String host, int port) throws IOException {
        socket.connect(new InetSocketAddress(host, port), 5_000);
        socket.setSoTimeout(60_000);
    }

    /** Sends a request without waiting for its answer; pass the header to {@link #receive}. */
    RequestHeader send(AbstractRequest request) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client", correlationId++);
        ByteBuffer buffer = request.serializeWithHeader(header);
        DataOutputStream out = new DataOutputStream(socket.getOutputStream());
        out.writeInt(buffer.remaining());
        out.write(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
        out.flush();
        return header;
    }

    /** Reads the next response, which must answer {@code header}. */
    AbstractResponse receive(RequestHeader header) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        return AbstractResponse.parseResponse(ByteBuffer.wrap(frame), header);
    }

    AbstractResponse call(AbstractRequest request) throws IOException {
        return receive(send(request));
    }

    /** A new idempotent producer id (InitProducerId without a transactional id). */
    long initProducerId() throws IOException {
        InitProducerIdResponse response = (InitProducerIdResponse) call(new InitProducerIdRequest.Builder(
                        new InitProducerIdRequestData().setTransactionalId(null).setTransactionTimeoutMs(60_000))
                .build((short) 5));
        if (response.data().errorCode() != 0) {
            throw new IOException(
                    "InitProducerId failed: " + Errors.forCode(response.data().errorCode()));
        }
        return response.data().producerId();
    }

    /** A Produce (acks=all, v12) of one idempotent batch of one record, epoch 0, to partition {@code tp}. */
    static ProduceRequest idempotentProduce(TopicPartition tp, long pid, int sequence, String value, int timeoutMs) {
        MemoryRecords records = MemoryRecords.withIdempotentRecords(
                Compression.NONE, pid, (short) 0, sequence, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(tp.topic())
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(tp.partition())
                        .setRecords(records))));
        return ProduceRequest.builder(new ProduceRequestData()
                        .setAcks((short) -1)
                        .setTimeoutMs(timeoutMs)
                        .setTopicData(topics))
                .build((short) 12);
    }

    /**
     * A Produce (acks=all, v12) of one transactional batch of one record under {@code transactionalId}, epoch 0: what
     * a producer whose AddPartitionsToTxn never reached the coordinator would write (a hanging transaction).
     */
    static ProduceRequest transactionalProduce(
            TopicPartition tp, String transactionalId, long pid, int sequence, String value, int timeoutMs) {
        MemoryRecords records = MemoryRecords.withTransactionalRecords(
                Compression.NONE, pid, (short) 0, sequence, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(tp.topic())
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(tp.partition())
                        .setRecords(records))));
        return ProduceRequest.builder(new ProduceRequestData()
                        .setTransactionalId(transactionalId)
                        .setAcks((short) -1)
                        .setTimeoutMs(timeoutMs)
                        .setTopicData(topics))
                .build((short) 12);
    }

    /** The answer for the one partition of a one-partition Produce. */
    static PartitionProduceResponse onlyPartition(ProduceResponse response) {
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .get(0);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
