package dev.strait.broker.protocol;

import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaManager;
import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeLogDirsRequestData.DescribableLogDirTopic;
import org.apache.kafka.common.message.DescribeLogDirsResponseData;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsPartition;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsResult;
import org.apache.kafka.common.message.DescribeLogDirsResponseData.DescribeLogDirsTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsResponse;
import org.apache.kafka.common.requests.RequestContext;

/**
 * DescribeLogDirs (API key 35): this node's one data directory ({@code log.dirs}) with every local replica in it,
 * leaders and followers, or only the partitions asked for. As Kafka: a replica's size is its log's bytes on disk,
 * its offset lag is how far its high watermark is past its log end (so 0 for every current replica; only a future
 * replica, which Strait never has, lags), and the directory's volume reports its total and usable bytes (KIP-827,
 * -1 if the file system cannot tell). DESCRIBE on the cluster is required; without it the answer lists no directory
 * and, from v3, says CLUSTER_AUTHORIZATION_FAILED.
 */
final class LogDirsHandler {

    private static final long UNKNOWN_VOLUME_BYTES = -1;

    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;

    LogDirsHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer) {
        this.replicaManager = replicaManager;
        this.authorizer = authorizer;
    }

    AbstractResponse handleDescribeLogDirsRequest(RequestContext context, DescribeLogDirsRequest request) {
        DescribeLogDirsResponseData response = new DescribeLogDirsResponseData();
        if (!authorizer.cluster(context, AclOperation.DESCRIBE)) {
            if (context.apiVersion() >= 3) {
                response.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
            }
            return new DescribeLogDirsResponse(response);
        }
        Map<String, Set<Integer>> wanted = null;
        if (request.data().topics() != null) {
            wanted = new HashMap<>();
            for (DescribableLogDirTopic topic : request.data().topics()) {
                wanted.computeIfAbsent(topic.topic(), t -> new java.util.HashSet<>())
                        .addAll(topic.partitions());
            }
        }
        // Name order within a topic and across topics, so that tools print a stable listing.
        Map<String, List<DescribeLogDirsPartition>> byTopic = new TreeMap<>();
        for (Partition partition : replicaManager.partitions()) {
            String topic = partition.topicPartition().topic();
            int index = partition.topicPartition().partition();
            if (wanted != null && !wanted.getOrDefault(topic, Set.of()).contains(index)) {
                continue;
            }
            byTopic.computeIfAbsent(topic, t -> new java.util.ArrayList<>())
                    .add(new DescribeLogDirsPartition()
                            .setPartitionIndex(index)
                            .setPartitionSize(partition.sizeBytes())
                            .setOffsetLag(Math.max(partition.highWatermark() - partition.logEndOffset(), 0))
                            .setIsFutureKey(false));
        }
        Path dir = replicaManager.logDir().toAbsolutePath();
        DescribeLogDirsResult result = new DescribeLogDirsResult()
                .setErrorCode(Errors.NONE.code())
                .setLogDir(dir.toString())
                .setTotalBytes(UNKNOWN_VOLUME_BYTES)
                .setUsableBytes(UNKNOWN_VOLUME_BYTES);
        try {
            FileStore store = Files.getFileStore(dir);
            result.setTotalBytes(store.getTotalSpace()).setUsableBytes(store.getUsableSpace());
        } catch (IOException e) {
            // The sizes stay unknown; the replicas are still worth reporting.
        }
        byTopic.forEach((topic, partitions) -> {
            partitions.sort(java.util.Comparator.comparingInt(DescribeLogDirsPartition::partitionIndex));
            result.topics().add(new DescribeLogDirsTopic().setName(topic).setPartitions(partitions));
        });
        response.results().add(result);
        return new DescribeLogDirsResponse(response);
    }
}
