package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.txn.TransactionCoordinatorCore;
import dev.strait.broker.txn.TransactionLoader;
import dev.strait.broker.txn.TransactionShard;
import dev.strait.broker.txn.TxnConfig;
import dev.strait.broker.txn.TxnError;
import dev.strait.broker.txn.TxnReply;
import dev.strait.time.Time;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A coordinator shard over a real {@code __transaction_state} partition on a one-node replica layer: its writes
 * become durable, are answered, and replay into the same state.
 */
class TransactionTopicLogTest {

    @TempDir
    Path root;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aShardWritesToTheTopicAndAReplayYieldsTheSameState() throws Exception {
        try (FileMetadataSource metadata = FileMetadataSource.open(root.resolve("meta"));
                ReplicaManager node =
                        new ReplicaManager(metadata, root.resolve("logs"), Map.of(), Time.SYSTEM, scheduler)) {
            // Given
            node.startup();
            TransactionTopicLog log = new TransactionTopicLog(node, 3, -1);
            assertThat(log.ensureCreated()).isTrue();
            int partition = TransactionCoordinatorCore.partitionFor("t", log.numPartitions());
            int epoch = log.position(partition).orElseThrow().leaderEpoch();
            TransactionShard shard = new TransactionShard(
                    TransactionCoordinatorCore.loaded(partition, epoch, TxnConfig.DEFAULTS, Map.of()),
                    log,
                    markers -> {},
                    5_000);
            shard.activate();
            List<TxnReply> replies = new ArrayList<>();

            // When
            shard.complete(shard.core().initProducerId("t", 10_000, null, () -> 42L, 0), 0, replies::add);
            shard.onReplicationProgress();

            // Then
            assertThat(replies).containsExactly(TxnReply.ok(42, (short) 0));
            assertThat(TransactionLoader.replay(log.replay(partition)))
                    .isEqualTo(shard.core().snapshot());
            assertThat(log.replay((partition + 1) % 3)).isEmpty();
            assertThat(shard.core().describe("t").error()).isEqualTo(TxnError.NONE);
        }
    }
}
