package dev.strait.mirror.engine;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.sync.GroupOffsetSync;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.SyncTopic;
import dev.strait.mirror.sync.TargetReader;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's two sync threads beside the streams: the group offset sync (which also keeps and persists the
 * offset map) and the topic sync (settings, partitions, ACLs). Neither can fail the mirror: each round catches
 * and reports its own errors.
 *
 * <p>Threading: created, started and stopped by the engine; the offset map is fed from the producer's I/O thread.
 */
final class EngineSyncs {
    private static final Logger LOGGER = LoggerFactory.getLogger(EngineSyncs.class);

    /** The offset map and the syncs beside it: all null when the offset map is off (or provenance headers are). */
    private final @Nullable OffsetMap offsetMap;

    private final @Nullable GroupOffsetSync groupSync;
    private final @Nullable SyncTopic syncTopic;
    private final @Nullable TargetReader reader;
    private final TargetTopics targetTopics;
    private final long topicIntervalMs;
    private final Time time;
    private final Object wakeup = new Object();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopRequested;

    EngineSyncs(
            MirrorConfig settings,
            Admin sourceAdmin,
            Admin targetAdmin,
            Properties targetClient,
            String sourceClusterId,
            TargetTopics targetTopics,
            MetricRegistry registry,
            Time time) {
        SyncConfig sync = settings.sync();
        this.targetTopics = targetTopics;
        this.topicIntervalMs = sync.topics().intervalMs();
        this.time = time;
        if (sync.offsetMap() && settings.provenanceHeaders()) {
            offsetMap = new OffsetMap(sourceClusterId, OffsetMap.DEFAULT_MAX_SEGMENTS);
            syncTopic = new SyncTopic(sync.syncTopic(), targetClient, time);
            reader = new TargetReader(targetClient, sourceClusterId, time, 30_000);
            groupSync = new GroupOffsetSync(
                    new GroupOffsetSync.Config(
                            sync.groups(),
                            sync.groupOffsetsIntervalMs(),
                            settings.consumerConfig().getProperty("group.id"),
                            settings.subscription(),
                            settings.renamer()),
                    sourceAdmin,
                    targetAdmin,
                    offsetMap,
                    syncTopic,
                    reader,
                    time,
                    Uuid.randomUuid().toString(),
                    registry);
        } else {
            offsetMap = null;
            syncTopic = null;
            reader = null;
            groupSync = null;
        }
    }

    /** Where the streams report acknowledged copies. */
    AcknowledgementListener listener() {
        if (offsetMap == null) {
            return AcknowledgementListener.NONE;
        }
        OffsetMap map = offsetMap;
        return new AcknowledgementListener() {
            @Override
            public void acknowledged(
                    TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
                map.acknowledged(source, sourceOffset, target, targetOffset);
            }

            @Override
            public void original(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
                map.original(source, sourceOffset, target, targetOffset);
            }
        };
    }

    @Nullable
    OffsetMap offsetMap() {
        return offsetMap;
    }

    @Nullable
    GroupOffsetSync groupSync() {
        return groupSync;
    }

    void start() {
        if (groupSync != null) {
            threads.add(new Thread(groupSync, "strait-group-sync"));
        }
        threads.add(new Thread(this::topicLoop, "strait-topic-sync"));
        threads.forEach(t -> {
            t.setDaemon(true);
            t.start();
        });
    }

    private void topicLoop() {
        while (!stopRequested) {
            long next = time.milliseconds() + topicIntervalMs;
            try {
                time.waitObject(wakeup, () -> stopRequested || time.milliseconds() >= next, next);
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                // the deadline passed between two looks at the clock
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (!stopRequested) {
                targetTopics.syncAll();
            }
        }
    }

    /** Asks both loops to stop (the group sync persists the offset map one last time); returns at once. */
    void requestStop() {
        stopRequested = true;
        if (groupSync != null) {
            groupSync.requestStop();
        }
        synchronized (wakeup) {
            wakeup.notifyAll();
        }
    }

    /** Waits up to {@code timeoutMs} for both loops to end; true when they did. */
    boolean awaitStop(long timeoutMs) {
        long deadline = time.milliseconds() + timeoutMs;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, deadline - time.milliseconds()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return threads.stream().noneMatch(Thread::isAlive);
    }

    /** Closes the loops' own clients (after {@link #awaitStop}; a loop still running then fails its round). */
    void close() {
        for (Thread t : threads) {
            if (t.isAlive()) {
                LOGGER.warn("{} did not stop in time; closing its clients under it", t.getName());
            }
        }
        try {
            if (syncTopic != null) {
                syncTopic.close();
            }
            if (reader != null) {
                reader.close();
            }
        } catch (RuntimeException e) {
            // A loop still inside a client call (a cluster unreachable): the client is dropped with the process.
            LOGGER.warn("Closing the sync clients failed: {}", e.toString());
        }
    }
}
