package dev.strait.broker.partition;

import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.log.LogClosedException;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.time.Time;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The follower side of replication: one fetcher thread per leader broker, pulling the partitions this node
 * follows from it. A partition's {@link Partition} decides what to do next: while it truncates, its thread asks
 * the leader (OffsetForLeaderEpoch, as a replica) where the follower's latest epoch ended; once fetching, it fetches
 * from its log end offset in the leader epoch it follows, appends what comes back as it is, and takes the leader's
 * high watermark. Answers for an epoch the partition has left are dropped by the partition. A partition the
 * leader answers with an error, or whose data cannot be appended, backs off alone for
 * {@code replica.fetch.backoff.ms} while the thread goes on with the others (as Kafka delays partitions); only a
 * failed connection to the leader backs off the whole thread.
 *
 * <p>Thread-safe: the partition map of each thread is guarded by the thread object; role changes arrive from the
 * replica manager's reconciliation ({@link ReplicaManager.RoleListener}) and only edit those maps.
 */
public final class ReplicaFetcherManager implements ReplicaManager.RoleListener, AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(ReplicaFetcherManager.class);

    /** {@code replica.fetch.*} and {@code replica.socket.timeout.ms}, by their Kafka meanings. */
    public record Config(int maxWaitMs, int minBytes, int maxBytesPerPartition, int responseMaxBytes, long backoffMs) {}

    private final int localId;
    private final MetadataSource metadata;
    private final LeaderClient.Factory clients;
    private final Config settings;
    private final Time time;
    private final Map<Integer, FetcherThread> threads = new HashMap<>();
    private boolean closed;
    private volatile FaultHandler faults = (what, cause) -> {};

    public ReplicaFetcherManager(int localId, MetadataSource metadata, LeaderClient.Factory clients, Config settings) {
        this(localId, metadata, clients, settings, Time.SYSTEM);
    }

    /** @param time the clock partition backoffs are measured on */
    public ReplicaFetcherManager(
            int localId, MetadataSource metadata, LeaderClient.Factory clients, Config settings, Time time) {
        this.localId = localId;
        this.metadata = metadata;
        this.clients = clients;
        this.settings = settings;
        this.time = time;
    }

    /** Told when a fetcher thread fails unexpectedly (a bug, not a network or leader error). */
    public void setFaultHandler(FaultHandler handler) {
        this.faults = handler;
    }

    @Override
    public synchronized void onBecomeLeader(Partition partition, int leaderEpoch) {
        remove(partition.topicPartition());
    }

    @Override
    public synchronized void onBecomeFollower(Partition partition, int leaderId, int leaderEpoch) {
        remove(partition.topicPartition());
        if (closed || leaderId < 0 || leaderId == localId) {
            return; // no leader: nothing to fetch from until the controller elects one
        }
        FetcherThread thread = threads.computeIfAbsent(leaderId, id -> {
            FetcherThread created = new FetcherThread(id);
            created.start();
            return created;
        });
        thread.add(partition, leaderEpoch);
    }

    @Override
    public synchronized void onRemoved(TopicPartition topicPartition) {
        remove(topicPartition);
    }

    private void remove(TopicPartition topicPartition) {
        for (FetcherThread thread : threads.values()) {
            thread.remove(topicPartition);
        }
    }

    /** Number of partitions being fetched (tests). */
    public synchronized int fetchedPartitions() {
        return threads.values().stream().mapToInt(FetcherThread::size).sum();
    }

    @Override
    public void close() {
        List<FetcherThread> stopping;
        synchronized (this) {
            closed = true;
            stopping = List.copyOf(threads.values());
            threads.clear();
        }
        for (FetcherThread thread : stopping) {
            thread.shutdown();
        }
        for (FetcherThread thread : stopping) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private record Followed(Partition partition, int leaderEpoch) {}

    private final class FetcherThread extends Thread {
        private final int leaderId;
        private final Map<TopicPartition, Followed> followed = new HashMap<>();
        /** Partitions backing off after an error, to the time they may be fetched again. */
        private final Map<TopicPartition, Long> delayedUntilMs = new HashMap<>();

        private volatile boolean running = true;
        /**
         * Set by {@link #add} and {@link #shutdown} (under the thread's lock) to end the backoff in progress early;
         * cleared as a backoff begins. Volatile because a clock's {@link Time#waitObject} may test its condition
         * without holding the monitor.
         */
        private volatile boolean woken;

        /** The connection to the leader, once made; null after a failure closed it. */
        private @Nullable LeaderClient client;
        /** Whether the leader's refusal of this broker's principal was logged since the last accepted fetch. */
        private boolean refusalLogged;

        FetcherThread(int leaderId) {
            super("strait-replica-fetcher-" + localId + "-from-" + leaderId);
            setDaemon(true);
            this.leaderId = leaderId;
        }

        synchronized void add(Partition partition, int leaderEpoch) {
            followed.put(partition.topicPartition(), new Followed(partition, leaderEpoch));
            delayedUntilMs.remove(partition.topicPartition()); // a new epoch starts afresh
            woken = true;
            notifyAll();
        }

        synchronized void remove(TopicPartition topicPartition) {
            followed.remove(topicPartition);
            delayedUntilMs.remove(topicPartition);
        }

        private synchronized void delay(Set<TopicPartition> failed) {
            long until = time.milliseconds() + Math.max(1, settings.backoffMs());
            for (TopicPartition tp : failed) {
                if (followed.containsKey(tp)) {
                    delayedUntilMs.put(tp, until);
                }
            }
        }

        /**
         * The partition's log was closed while its request was in flight: it was deleted or moved off this broker
         * (its removal from this fetcher follows or has happened). Its answer is dropped; no other partition is
         * affected and the broker goes on.
         */
        private void removedInFlight(TopicPartition partition, LogClosedException e) {
            LOGGER.info(
                    "[broker {}] {} was removed while its fetch from broker {} was in flight; its answer is dropped ({})",
                    localId,
                    partition,
                    leaderId,
                    e.getMessage());
        }

        /** Once until a fetch is accepted again: the fetch repeats every backoff, and so would the line. */
        private void logRefusal(TopicPartition partition) {
            if (!refusalLogged) {
                refusalLogged = true;
                LOGGER.warn(
                        "[broker {}] broker {} refuses to replicate {} to this broker: the principal this broker "
                                + "authenticates as (sasl.mechanism.inter.broker.protocol and its JAAS entry, or its "
                                + "certificate) needs CLUSTER_ACTION on the cluster, or to be in super.users",
                        localId,
                        leaderId,
                        partition);
            }
        }

        synchronized int size() {
            return followed.size();
        }

        void shutdown() {
            running = false;
            interrupt();
            synchronized (this) {
                woken = true;
                notifyAll();
            }
            closeClient();
        }

        private synchronized void closeClient() {
            if (client != null) {
                client.close();
                client = null;
            }
        }

        @Override
        public void run() {
            while (running) {
                try {
                    doWork();
                } catch (IOException e) {
                    if (running) {
                        LOGGER.info("[broker {}] fetching from broker {} failed: {}", localId, leaderId, e.toString());
                    }
                    closeClient();
                    backoff();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    LOGGER.error("[broker {}] fetcher for broker {} failed", localId, leaderId, e);
                    if (running) {
                        faults.handleFault("replica fetcher of broker " + localId + " from broker " + leaderId, e);
                    }
                    backoff();
                }
            }
            closeClient();
        }

        /**
         * Waits {@code replica.fetch.backoff.ms} on the injected clock (as {@link #awaitReady} does, so a test's manual
         * clock ends it when it moves), or until {@link #add} brings a partition's new epoch, or shutdown.
         */
        private void backoff() {
            long deadlineMs;
            synchronized (this) {
                if (!running) {
                    return;
                }
                woken = false;
                deadlineMs = time.milliseconds() + Math.max(1, settings.backoffMs());
            }
            try {
                time.waitObject(this, () -> !running || woken, deadlineMs);
            } catch (InterruptedException e) {
                running = false;
            }
        }

        /** One round over the partitions not backing off: truncations, then one fetch. */
        private void doWork() throws IOException, InterruptedException {
            List<Followed> snapshot = awaitReady();
            if (snapshot.isEmpty()) {
                return;
            }
            LeaderClient leader = client();
            if (leader == null) {
                backoff(); // the leader is not registered (or fenced): nothing of it can be fetched
                return;
            }
            Set<TopicPartition> failed = new java.util.HashSet<>();
            boolean asked = truncate(leader, snapshot, failed);
            asked |= fetch(leader, snapshot, failed);
            delay(failed);
            if (!asked) {
                // Every partition is between a role change and its new registration here: wait for it.
                backoff();
            }
        }

        /** Waits until some followed partition is not backing off; returns those, empty when stopping. */
        private List<Followed> awaitReady() throws InterruptedException {
            while (running) {
                long nextReadyMs;
                synchronized (this) {
                    List<Followed> ready = readyAt(time.milliseconds());
                    if (!ready.isEmpty()) {
                        ready.forEach(f -> delayedUntilMs.remove(f.partition().topicPartition()));
                        return ready;
                    }
                    nextReadyMs = delayedUntilMs.values().stream()
                            .mapToLong(Long::longValue)
                            .min()
                            .orElse(Long.MAX_VALUE);
                }
                // On the clock the backoffs were set on, not wait(ms): a test's manual clock ends them when it moves.
                time.waitObject(
                        this, () -> !running || !readyAt(time.milliseconds()).isEmpty(), nextReadyMs);
            }
            return List.of();
        }

        private synchronized List<Followed> readyAt(long nowMs) {
            List<Followed> ready = new ArrayList<>();
            for (Map.Entry<TopicPartition, Followed> entry : followed.entrySet()) {
                Long until = delayedUntilMs.get(entry.getKey());
                if (until == null || until <= nowMs) {
                    ready.add(entry.getValue());
                }
            }
            return ready;
        }

        /** The connection to the leader, made if needed; null while the leader is not registered (or fenced). */
        private synchronized @Nullable LeaderClient client() throws IOException {
            if (client == null) {
                Optional<BrokerRegistration> broker = metadata.brokers().stream()
                        .filter(b -> b.id() == leaderId && !b.fenced())
                        .findFirst();
                if (broker.isEmpty()) {
                    return null;
                }
                client = clients.connect(
                        leaderId, broker.get().host(), broker.get().port());
            }
            return client;
        }

        /** @return whether anything was asked */
        private boolean truncate(LeaderClient leader, List<Followed> snapshot, Set<TopicPartition> failed)
                throws IOException {
            List<LeaderClient.EpochQuery> queries = new ArrayList<>();
            Map<TopicPartition, Followed> asked = new HashMap<>();
            for (Followed f : snapshot) {
                OptionalInt epoch = f.partition().epochToQuery(f.leaderEpoch());
                if (epoch.isPresent()) {
                    queries.add(new LeaderClient.EpochQuery(
                            f.partition().topicPartition(), f.leaderEpoch(), epoch.getAsInt()));
                    asked.put(f.partition().topicPartition(), f);
                }
            }
            if (queries.isEmpty()) {
                return false;
            }
            for (Map.Entry<TopicPartition, LeaderClient.EpochAnswer> entry :
                    leader.offsetsForLeaderEpoch(queries).entrySet()) {
                Followed f = asked.get(entry.getKey());
                LeaderClient.EpochAnswer answer = entry.getValue();
                if (f == null) {
                    continue;
                }
                if (answer.error() == LeaderClient.ReplicaError.NOT_AUTHORIZED) {
                    logRefusal(entry.getKey());
                }
                if (answer.error() != LeaderClient.ReplicaError.NONE) {
                    LOGGER.debug(
                            "[broker {}] OffsetForLeaderEpoch of {} from {}: {}",
                            localId,
                            entry.getKey(),
                            leaderId,
                            answer.error());
                    failed.add(entry.getKey());
                    continue;
                }
                EpochEndOffset end = answer.leaderEpoch() < 0
                        ? EpochEndOffset.UNDEFINED
                        : new EpochEndOffset(answer.leaderEpoch(), answer.endOffset());
                try {
                    f.partition().onEpochEndOffset(f.leaderEpoch(), end);
                } catch (LogClosedException e) {
                    removedInFlight(entry.getKey(), e);
                    failed.add(entry.getKey());
                    continue;
                } catch (IllegalArgumentException | LogStorageException e) {
                    LOGGER.warn(
                            "[broker {}] cannot truncate {} after the leader's answer {}: {}",
                            localId,
                            entry.getKey(),
                            end,
                            e.toString());
                    failed.add(entry.getKey());
                    continue;
                }
                LOGGER.info(
                        "[broker {}] {} truncated after the leader's answer {}; log end now {}",
                        localId,
                        entry.getKey(),
                        end,
                        f.partition().logEndOffset());
            }
            return true;
        }

        /** The offset a partition of the answer was fetched from: the leader answers only for what was asked. */
        private static long fetchedFrom(Map<TopicPartition, Long> offsets, TopicPartition tp) {
            return Objects.requireNonNull(offsets.get(tp), "a partition in the answer was asked for");
        }

        /** @return whether anything was asked */
        private boolean fetch(LeaderClient leader, List<Followed> snapshot, Set<TopicPartition> failed)
                throws IOException {
            List<LeaderClient.FetchTarget> targets = new ArrayList<>();
            Map<TopicPartition, Followed> fetched = new HashMap<>();
            Map<TopicPartition, Long> offsets = new HashMap<>();
            for (Followed f : snapshot) {
                OptionalLong offset = f.partition().fetchOffset(f.leaderEpoch());
                if (offset.isPresent()) {
                    TopicPartition tp = f.partition().topicPartition();
                    targets.add(new LeaderClient.FetchTarget(
                            tp,
                            f.partition().topicId(),
                            offset.getAsLong(),
                            f.partition().logStartOffset(),
                            f.leaderEpoch(),
                            settings.maxBytesPerPartition()));
                    fetched.put(tp, f);
                    offsets.put(tp, offset.getAsLong());
                }
            }
            if (targets.isEmpty()) {
                return false;
            }
            Map<TopicPartition, LeaderClient.FetchedPartition> response =
                    leader.fetch(targets, settings.maxWaitMs(), settings.minBytes(), settings.responseMaxBytes());
            for (Map.Entry<TopicPartition, LeaderClient.FetchedPartition> entry : response.entrySet()) {
                Followed f = fetched.get(entry.getKey());
                LeaderClient.FetchedPartition data = entry.getValue();
                if (f == null) {
                    continue;
                }
                if (data.error() == LeaderClient.ReplicaError.OFFSET_OUT_OF_RANGE
                        && f.partition()
                                .onLeaderLogStartAhead(
                                        f.leaderEpoch(), fetchedFrom(offsets, entry.getKey()), data.logStartOffset())) {
                    LOGGER.info(
                            "[broker {}] {} restarted empty at the leader's log start offset {}",
                            localId,
                            entry.getKey(),
                            data.logStartOffset());
                    continue;
                }
                if (data.error() == LeaderClient.ReplicaError.NOT_AUTHORIZED) {
                    logRefusal(entry.getKey());
                } else if (data.error() == LeaderClient.ReplicaError.NONE) {
                    refusalLogged = false;
                }
                if (data.error() != LeaderClient.ReplicaError.NONE) {
                    LOGGER.debug(
                            "[broker {}] fetch of {} from {}: {}", localId, entry.getKey(), leaderId, data.error());
                    failed.add(entry.getKey());
                    continue;
                }
                try {
                    f.partition()
                            .appendAsFollower(
                                    f.leaderEpoch(),
                                    fetchedFrom(offsets, entry.getKey()),
                                    data.records(),
                                    data.highWatermark(),
                                    data.logStartOffset());
                } catch (LogClosedException e) {
                    removedInFlight(entry.getKey(), e);
                    failed.add(entry.getKey());
                } catch (IllegalArgumentException
                        | LogStorageException
                        | dev.strait.broker.log.CorruptRecordException e) {
                    LOGGER.warn(
                            "[broker {}] cannot append the fetched data of {}: {}",
                            localId,
                            entry.getKey(),
                            e.toString());
                    failed.add(entry.getKey());
                }
            }
            return true;
        }
    }
}
