package dev.strait.broker.protocol;

import dev.strait.broker.network.NetworkRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.jspecify.annotations.Nullable;

/**
 * WriteTxnMarkers: a transaction coordinator on another node (or {@code kafka-transactions abort}) ends a
 * producer's transaction in partitions this node leads. Needs CLUSTER_ACTION, as in Kafka; answered once every
 * marker is replicated.
 */
final class WriteTxnMarkersHandler {

    private final TxnMarkerWriter writer;
    private final RequestAuthorizer authorizer;

    WriteTxnMarkersHandler(TxnMarkerWriter writer, RequestAuthorizer authorizer) {
        this.writer = writer;
        this.authorizer = authorizer;
    }

    @Nullable
    AbstractResponse handle(NetworkRequest request, RequestContext context, WriteTxnMarkersRequest body) {
        List<WriteTxnMarkersRequest.TxnMarkerEntry> markers = body.markers();
        if (!authorizer.cluster(context, AclOperation.CLUSTER_ACTION)) {
            Map<Long, Map<TopicPartition, Errors>> refused = new HashMap<>();
            for (WriteTxnMarkersRequest.TxnMarkerEntry marker : markers) {
                Map<TopicPartition, Errors> errors =
                        refused.computeIfAbsent(marker.producerId(), id -> new HashMap<>());
                marker.partitions().forEach(tp -> errors.put(tp, Errors.CLUSTER_AUTHORIZATION_FAILED));
            }
            return new WriteTxnMarkersResponse(refused);
        }
        List<CompletableFuture<Map<TopicPartition, Errors>>> written = new ArrayList<>();
        for (WriteTxnMarkersRequest.TxnMarkerEntry marker : markers) {
            CompletableFuture<Map<TopicPartition, Errors>> one = new CompletableFuture<>();
            writer.write(
                    new TxnMarkerWriter.Request(
                            marker.producerId(),
                            marker.producerEpoch(),
                            marker.transactionResult() == TransactionResult.COMMIT,
                            marker.coordinatorEpoch(),
                            marker.partitions()),
                    one::complete);
            written.add(one);
        }
        CompletableFuture.allOf(written.toArray(CompletableFuture[]::new)).thenRun(() -> {
            Map<Long, Map<TopicPartition, Errors>> errors = new HashMap<>();
            for (int i = 0; i < markers.size(); i++) {
                errors.computeIfAbsent(markers.get(i).producerId(), id -> new HashMap<>())
                        .putAll(written.get(i).join());
            }
            KafkaApis.sendResponse(request, context, new WriteTxnMarkersResponse(errors));
        });
        return null;
    }
}
