package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read lease on three real quorum nodes (issue 22): a node whose heartbeats stop being answered stops trusting
 * what it leads before the controller fences it, and trusts it again once a heartbeat is answered.
 */
class ReadLeaseIT {

    @TempDir
    Path dir;

    private QuorumTestCluster cluster;

    @AfterEach
    void close() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aNodeWhoseHeartbeatsStopLosesItsLeaseBeforeItIsFencedAndRegainsItAfter() throws InterruptedException {
        // Given: three live nodes, each holding its lease
        cluster = new QuorumTestCluster(dir, 3).startAll();
        cluster.awaitAllUnfenced();
        for (int id = 0; id < 3; id++) {
            int node = id;
            await(
                    "node " + node + " holds its read lease",
                    () -> cluster.node(node).holdsReadLease());
        }
        int victim = 1;
        int observer = 2;

        // When: the victim stops heartbeating (a hung broker) while it still follows the metadata log
        cluster.node(victim).pauseHeartbeats(true);

        // Then: its lease lapses strictly before any controller fences it
        long lapsedAt = -1;
        long fencedAt = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fencedAt < 0 && System.nanoTime() < deadline) {
            boolean fenced = cluster.node(observer).brokers().stream().anyMatch(b -> b.id() == victim && b.fenced());
            boolean held = cluster.node(victim).holdsReadLease();
            long now = System.nanoTime();
            if (!held && lapsedAt < 0) {
                lapsedAt = now;
            }
            if (held) {
                lapsedAt = -1; // a heartbeat answered just before the pause may still renew it once
            }
            if (fenced) {
                fencedAt = now;
            }
            Thread.sleep(2);
        }
        assertThat(fencedAt).as("the victim was fenced within 30 s").isPositive();
        assertThat(lapsedAt)
                .as("the victim's lease had lapsed when it was fenced")
                .isPositive();
        assertThat(fencedAt - lapsedAt)
                .as("time from the lease's end to the fencing (ns)")
                .isGreaterThan(TimeUnit.MILLISECONDS.toNanos(100));

        // And: once it heartbeats again (and is unfenced) it holds the lease again
        cluster.node(victim).pauseHeartbeats(false);
        await(
                "node " + victim + " holds its read lease again",
                () -> cluster.node(victim).holdsReadLease());
    }
}
