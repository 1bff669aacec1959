package dev.strait.testkit.nemesis;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * Asks one node, and only that node, for its metadata: a Metadata request (v12) on a socket of its own. The admin
 * client cannot do this (it sends each request to whichever node it likes), and "every node's metadata agrees"
 * is a claim about each node.
 */
final class MetadataProbe {
    private static final short VERSION = 12;
    private static final AtomicInteger CORRELATION = new AtomicInteger();

    private MetadataProbe() {}

    /** One partition as one node sees it. */
    record PartitionView(int leader, int leaderEpoch, List<Integer> replicas, SortedSet<Integer> isr, short error) {
        boolean healthy(Set<Integer> brokers) {
            return error == 0
                    && leader >= 0
                    && brokers.contains(leader)
                    && isr.equals(new TreeSet<>(replicas))
                    && brokers.containsAll(replicas);
        }

        @Override
        public String toString() {
            return (error != 0 ? "error " + error + " " : "") + "leader " + leader + " epoch " + leaderEpoch
                    + " replicas " + replicas + " isr " + isr;
        }
    }

    /** What one node answered: its live brokers and, per partition of the requested topics, the partition state. */
    record NodeView(
            int node,
            SortedSet<Integer> brokers,
            SortedMap<TopicPartition, PartitionView> partitions,
            Map<String, Short> topicErrors) {
        /** The same brokers and partition states (leader epochs included) as another node. */
        boolean agreesWith(NodeView other) {
            return brokers.equals(other.brokers)
                    && partitions.equals(other.partitions)
                    && topicErrors.equals(other.topicErrors);
        }
    }

    static NodeView fetch(int node, String host, int port, List<String> topics, int timeoutMs) throws IOException {
        MetadataRequestData data = new MetadataRequestData().setAllowAutoTopicCreation(false);
        for (String topic : topics) {
            data.topics().add(new MetadataRequestData.MetadataRequestTopic().setName(topic));
        }
        MetadataRequest request = new MetadataRequest.Builder(data).build(VERSION);
        RequestHeader header =
                new RequestHeader(ApiKeys.METADATA, VERSION, "nemesis-probe", CORRELATION.incrementAndGet());
        ByteBuffer payload = request.serializeWithHeader(header);
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            byte[] bytes = new byte[payload.remaining()];
            payload.get(bytes);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            if (size < 0 || size > (64 << 20)) {
                throw new IOException("node " + node + " answered a frame of " + size + " bytes");
            }
            byte[] response = new byte[size];
            in.readFully(response);
            MetadataResponse parsed =
                    (MetadataResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
            return view(node, parsed.data());
        }
    }

    private static NodeView view(int node, MetadataResponseData data) {
        SortedSet<Integer> brokers = new TreeSet<>();
        data.brokers().forEach(b -> brokers.add(b.nodeId()));
        SortedMap<TopicPartition, PartitionView> partitions =
                new TreeMap<>((a, b) -> a.topic().equals(b.topic())
                        ? Integer.compare(a.partition(), b.partition())
                        : a.topic().compareTo(b.topic()));
        Map<String, Short> topicErrors = new TreeMap<>();
        for (MetadataResponseData.MetadataResponseTopic topic : data.topics()) {
            if (topic.errorCode() != 0) {
                topicErrors.put(topic.name(), topic.errorCode());
            }
            for (MetadataResponseData.MetadataResponsePartition p : topic.partitions()) {
                partitions.put(
                        new TopicPartition(topic.name(), p.partitionIndex()),
                        new PartitionView(
                                p.leaderId(),
                                p.leaderEpoch(),
                                new ArrayList<>(p.replicaNodes()),
                                new TreeSet<>(p.isrNodes()),
                                p.errorCode()));
            }
        }
        return new NodeView(node, brokers, partitions, topicErrors);
    }
}
