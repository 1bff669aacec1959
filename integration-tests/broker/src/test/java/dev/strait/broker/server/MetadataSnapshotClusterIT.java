package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.FileRaftStorage;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Metadata snapshots on a real three-node quorum in one JVM: with a small snapshot threshold the voters
 * snapshot and truncate their metadata logs; a node stopped while that happened restarts behind the leader's
 * log start and must fetch the snapshot over the controller wire; a restarted node loads its own snapshot. Each
 * node's metadata is read from that node alone (a raw Metadata request to its port), so the assertions see its
 * own image, not whatever node a client would pick.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class MetadataSnapshotClusterIT {

    private static final Pattern SNAPSHOT = Pattern.compile("(\\d{20})-(\\d{10})\\.checkpoint");
    private static final long WAIT_MS = 60_000;

    @Test
    void aNodeRestartedBehindTheLeadersLogStartCatchesUpFromItsSnapshot() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("metadata.log.max.record.bytes.between.snapshots", "2048")
                        .brokerConfig("broker.session.timeout.ms", "3000")
                        .brokerConfig("broker.heartbeat.interval.ms", "500")
                        .start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("before", 1, (short) 3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            awaitTopics(cluster, 2, Map.of("before", 1));
            // Given: node 2 stops; 30 topics of 3 partitions later, the others have snapshotted past its log end
            cluster.stop(2);
            long stoppedEnd;
            try (FileRaftStorage log = FileRaftStorage.open(metadataDir(cluster, 2))) {
                stoppedEnd = log.endOffset();
            }
            Map<String, Integer> expected = new TreeMap<>(Map.of("before", 1));
            for (int i = 0; i < 30; i++) {
                admin.createTopics(List.of(new NewTopic("t" + i, 3, (short) 2)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                expected.put("t" + i, 3);
            }
            await(
                    "the running voters snapshot beyond node 2's log end " + stoppedEnd,
                    () -> latestSnapshotEnd(cluster, 0) > stoppedEnd && latestSnapshotEnd(cluster, 1) > stoppedEnd);
            // When
            cluster.resume(2);
            // Then: it serves every topic from its own metadata, which it got from a snapshot it fetched
            awaitTopics(cluster, 2, expected);
            assertThat(latestSnapshotEnd(cluster, 2)).isGreaterThan(stoppedEnd);
            // and a restarted node loads its own latest snapshot, then replays the log after it
            admin.createTopics(List.of(new NewTopic("after", 2, (short) 3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            expected.put("after", 2);
            awaitTopics(cluster, 0, expected);
            long snapshotBeforeRestart = latestSnapshotEnd(cluster, 0);
            cluster.restart(0);
            awaitTopics(cluster, 0, expected);
            assertThat(snapshotBeforeRestart).isPositive();
        }
    }

    private static Path metadataDir(EmbeddedCluster cluster, int node) {
        return cluster.dataDir().resolve("node-" + node).resolve("__cluster_metadata-0");
    }

    /** End offset of the node's latest snapshot file, 0 if none. */
    private static long latestSnapshotEnd(EmbeddedCluster cluster, int node) {
        try (Stream<Path> files = Files.list(metadataDir(cluster, node))) {
            long latest = 0;
            for (Path file : files.toList()) {
                Matcher name = SNAPSHOT.matcher(file.getFileName().toString());
                if (name.matches()) {
                    latest = Math.max(latest, Long.parseLong(name.group(1)));
                }
            }
            return latest;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void awaitTopics(EmbeddedCluster cluster, int node, Map<String, Integer> expected)
            throws InterruptedException {
        int port = port(cluster, node);
        await("node " + node + " serves " + expected.keySet(), () -> {
            Map<String, Integer> served = topicsServedBy(port);
            return served.entrySet().containsAll(expected.entrySet());
        });
    }

    private static int port(EmbeddedCluster cluster, int node) {
        String address = cluster.bootstrapServers().split(",")[node];
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    /** Topic name to partition count, as the broker on {@code port} itself answers a Metadata request. */
    private static Map<String, Integer> topicsServedBy(int port) {
        short version = 12;
        MetadataRequest request = MetadataRequest.Builder.allTopics().build(version);
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, version, "snapshot-test", 1);
        ByteBuffer out = request.serializeWithHeader(header);
        Map<String, Integer> topics = new TreeMap<>();
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            socket.setSoTimeout(5_000);
            OutputStream stream = socket.getOutputStream();
            byte[] body = new byte[out.remaining()];
            out.get(body);
            stream.write(ByteBuffer.allocate(4).putInt(body.length).array());
            stream.write(body);
            stream.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] response = new byte[in.readInt()];
            in.readFully(response);
            MetadataResponse metadata =
                    (MetadataResponse) AbstractResponse.parseResponse(ByteBuffer.wrap(response), header);
            metadata.topicMetadata()
                    .forEach(t -> topics.put(t.topic(), t.partitionMetadata().size()));
        } catch (IOException e) {
            return Map.of(); // restarting; ask again
        }
        return topics;
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100); // a poll interval, not a synchronisation: the bound is the deadline
        }
        throw new AssertionError("timed out after " + WAIT_MS + " ms waiting until " + what);
    }
}
