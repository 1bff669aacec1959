package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerRequest.AllocateProducerIds;
import dev.strait.broker.controller.ControllerRequest.AlterConfigs;
import dev.strait.broker.controller.ControllerRequest.AlterPartition;
import dev.strait.broker.controller.ControllerRequest.CreatePartitions;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.DeleteTopic;
import dev.strait.broker.controller.ControllerRequest.DescribeQuorum;
import dev.strait.broker.controller.ControllerRequest.ElectPreferredLeaders;
import dev.strait.broker.controller.ControllerRequest.PatchConfigs;
import dev.strait.broker.metadata.AclEntry;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.InvalidReplicaAssignmentException;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.NoReassignmentInProgressException;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.QuorumLeaderUnknownException;
import dev.strait.broker.metadata.QuorumStatus;
import dev.strait.broker.metadata.ScramCredentialEntry;
import dev.strait.broker.metadata.StaleEpochException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.raft.QuorumDescription;
import dev.strait.broker.raft.metadata.MetadataImage;
import dev.strait.broker.raft.metadata.MetadataImage.NodeRegistration;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MetadataSource} of a node in a cluster with a controller quorum. Reads come from the node's image of
 * the committed metadata log, so they never show anything a controller failover could take back. Mutations go
 * to the active controller (forwarded over the controller listener when that is another node, repeated across
 * controller changes up to the request timeout) and return once this node's own image has applied the result:
 * a caller reads its own writes. {@link #registerLocalBroker} registers the node and starts its heartbeats;
 * {@link #close()} asks for a controlled shutdown first (bounded), then stops the quorum machinery.
 *
 * <p>Thread-safe. Change listeners and the completion of {@link #alterPartition} futures run on one callback
 * thread per node ({@code strait-metadata-callbacks-<id>}), in commit order, never on the quorum loop.
 * Errors: {@link TopicExistsException}, {@link UnknownTopicException}, {@link InvalidReplicationFactorException},
 * {@link StaleEpochException}, {@link IllegalArgumentException} as the contract says; Kafka's
 * {@link TimeoutException} when no controller answered in time.
 */
public final class QuorumMetadataSource implements MetadataSource {

    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumMetadataSource.class);
    /**
     * Bound on one DescribeQuorum, retries across leader changes included: well below a client's default
     * {@code request.timeout.ms} (30 s), so the client gets a retriable error instead of a dropped request.
     */
    private static final long DESCRIBE_QUORUM_TIMEOUT_MS = 5_000;
    /**
     * The name DescribeQuorum gives the voters' endpoints. {@code controller.quorum.voters} names no listener;
     * Kafka uses the first of {@code controller.listener.names}, which is CONTROLLER in Strait's configs.
     */
    static final String CONTROLLER_LISTENER_NAME = "CONTROLLER";

    private final QuorumConfig settings;
    private final String clusterId;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final List<ImageWaiter> waiters = new CopyOnWriteArrayList<>();
    private final ExecutorService callbacks;
    private final QuorumRuntime runtime;
    private final Time time;
    private final CompletableFuture<Void> selfUnfenced = new CompletableFuture<>();
    private volatile ClusterImage image = ClusterImage.EMPTY;
    private volatile boolean closed;
    /** Set by the first publication, which the runtime holds back until the node has caught up with the quorum. */
    private volatile boolean published;

    private volatile boolean shutDown;
    private volatile boolean abrupt;
    private final CleanShutdownMarker cleanShutdownMarker;
    /** The node epoch the previous process left in its clean-shutdown marker; UNCLEAN if none. */
    private final long previousNodeEpoch;

    private record ImageWaiter(long offset, CompletableFuture<ClusterImage> future) {}

    private QuorumMetadataSource(QuorumConfig settings, QuorumEnvironment environment) {
        this.settings = settings;
        this.time = environment.time;
        this.clusterId = settings.clusterId();
        this.callbacks = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "strait-metadata-callbacks-" + settings.nodeId());
            thread.setDaemon(true);
            return thread;
        });
        this.cleanShutdownMarker = new CleanShutdownMarker(settings.metadataLogDir());
        long marked = cleanShutdownMarker.take();
        if (marked == ControllerRequest.RegisterBroker.UNCLEAN) {
            long sameBoot = new PreviousLife(settings.metadataLogDir(), environment.bootIdFile).epochIfSameBoot();
            if (sameBoot != ControllerRequest.RegisterBroker.UNCLEAN) {
                LOGGER.info(
                        "[QuorumMetadataSource {}] no clean-shutdown marker, but the machine has not restarted since"
                                + " registration {}: the page cache kept every write of the previous run",
                        settings.nodeId(),
                        sameBoot);
            } else {
                LOGGER.info(
                        "[QuorumMetadataSource {}] no clean-shutdown marker: the previous run, if any, ended uncleanly",
                        settings.nodeId());
            }
            marked = sameBoot;
        }
        this.previousNodeEpoch = marked;
        this.runtime = new QuorumRuntime(settings, environment, this::publish);
    }

    /**
     * Opens the metadata log, binds the controller listener (voters) and starts following the quorum. If the
     * quorum loop fails, the environment's fault handler is called and every later mutation fails.
     */
    public static QuorumMetadataSource open(QuorumConfig settings, QuorumEnvironment environment) {
        return new QuorumMetadataSource(settings, environment);
    }

    /** Port the controller listener is bound to, or -1 if this node has none. */
    public int controllerPort() {
        return runtime.boundPort();
    }

    // ---------------------------------------------------------------- image publication (quorum loop thread)

    private void publish(ClusterImage next) {
        ClusterImage previous = image;
        image = next;
        published = true;
        boolean changed = previous.image() != next.image();
        for (ImageWaiter waiter : waiters) {
            if (next.endOffset() > waiter.offset()) {
                waiters.remove(waiter);
                callbacks.execute(() -> waiter.future().complete(next));
            }
        }
        if (changed) {
            callbacks.execute(this::fireListeners);
            if (next.isUnfenced(settings.nodeId()) && registeredInThisProcess(next)) {
                selfUnfenced.complete(null);
            }
        }
    }

    /**
     * Whether the node's registration in {@code next} is the one this process made, not the previous life's that
     * a restarted node's own image shows before it hears from the controller. Runs on the loop thread, which can
     * publish before this object's constructor has stored {@link #runtime}.
     */
    private boolean registeredInThisProcess(ClusterImage next) {
        QuorumRuntime current = runtime;
        java.util.UUID incarnation = current == null ? null : current.brokerIncarnation();
        return incarnation != null
                && next.node(settings.nodeId())
                        .map(node -> incarnation.equals(node.incarnationId()))
                        .orElse(false);
    }

    private void fireListeners() {
        for (Runnable listener : listeners) {
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOGGER.warn("metadata change listener failed: {}", e.toString(), e);
            }
        }
    }

    /** Completes (on the callback thread) once the image holds the entry at {@code offset}. */
    private CompletableFuture<ClusterImage> imageIncluding(long offset) {
        CompletableFuture<ClusterImage> future = new CompletableFuture<>();
        ClusterImage current = image;
        if (current.endOffset() > offset) {
            future.complete(current);
            return future;
        }
        ImageWaiter waiter = new ImageWaiter(offset, future);
        waiters.add(waiter);
        current = image;
        if (current.endOffset() > offset && waiters.remove(waiter)) {
            future.complete(current);
        }
        return future;
    }

    // ---------------------------------------------------------------- reads

    @Override
    public String clusterId() {
        return clusterId;
    }

    @Override
    public int localNodeId() {
        return settings.nodeId();
    }

    @Override
    public void registerLocalBroker(String host, int port) {
        registerLocalBroker(host, port, List.of());
    }

    @Override
    public void registerLocalBroker(String host, int port, List<BrokerRegistration.Endpoint> endpoints) {
        List<MetadataRecord.Endpoint> listed = new ArrayList<>();
        for (BrokerRegistration.Endpoint endpoint : endpoints) {
            listed.add(new MetadataRecord.Endpoint(
                    endpoint.listener(), endpoint.host(), endpoint.port(), endpoint.protocol()));
        }
        runtime.registerBroker(host, port, listed, previousNodeEpoch);
        awaitUnfenced();
    }

    /**
     * Like Kafka's broker start-up, waits until the controller unfenced this node, so that the first requests
     * find it eligible (a one-node quorum would otherwise refuse topics for lack of brokers). Bounded: gives up
     * at the request timeout, and early when no leader has appeared after a few election timeouts (the first
     * node of a cluster started one node at a time cannot form a quorum alone); the registration then
     * completes in the background once the quorum forms.
     */
    private void awaitUnfenced() {
        long start = time.hiResClockMs();
        long deadline = start + settings.requestTimeoutMs();
        long leaderDeadline = start
                + 3
                        * (settings.raftConfig().electionTimeoutMs()
                                + settings.raftConfig().electionJitterMs());
        while (true) {
            try {
                selfUnfenced.get(50, TimeUnit.MILLISECONDS);
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                // keep waiting
            }
            long now = time.hiResClockMs();
            if (runtime.fatalError() != null) {
                return; // the quorum loop failed; the broker is told through its fault handler
            }
            if (now >= deadline || (runtime.knownLeader() == -1 && now >= leaderDeadline)) {
                LOGGER.info(
                        "node {} not unfenced yet (known leader {}); it joins when the quorum commits its "
                                + "registration",
                        settings.nodeId(),
                        runtime.knownLeader());
                return;
            }
        }
    }

    @Override
    public Collection<BrokerRegistration> brokers() {
        List<BrokerRegistration> brokers = new ArrayList<>();
        for (NodeRegistration node : image.image().nodes().values()) {
            List<BrokerRegistration.Endpoint> endpoints = new ArrayList<>();
            for (MetadataRecord.Endpoint endpoint : node.endpoints()) {
                endpoints.add(new BrokerRegistration.Endpoint(
                        endpoint.name(), endpoint.host(), endpoint.port(), endpoint.protocol()));
            }
            brokers.add(new BrokerRegistration(node.nodeId(), node.host(), node.port(), node.fenced(), endpoints));
        }
        return brokers;
    }

    @Override
    public Optional<PartitionState> partitionState(Uuid topicId, int partition) {
        return partitionState(image, toUuid(topicId), partition);
    }

    private static Optional<PartitionState> partitionState(ClusterImage image, UUID topicId, int partition) {
        TopicImage topic = image.image().topics().get(topicId);
        if (topic == null) {
            return Optional.empty();
        }
        MetadataImage.PartitionState state = topic.partitions().get(partition);
        if (state == null) {
            return Optional.empty();
        }
        return Optional.of(new PartitionState(
                state.leader(),
                state.leaderEpoch(),
                state.replicas(),
                state.isr(),
                image.partitionEpoch(topicId, partition),
                state.elr(),
                state.lastKnownElr(),
                state.addingReplicas(),
                state.removingReplicas()));
    }

    @Override
    public void addChangeListener(Runnable listener) {
        listeners.add(listener);
    }

    @Override
    public Collection<TopicMetadata> topics() {
        List<TopicMetadata> topics = new ArrayList<>();
        for (TopicImage topic : image.image().topics().values()) {
            topics.add(toTopicMetadata(topic));
        }
        return topics;
    }

    @Override
    public Optional<TopicMetadata> topic(String name) {
        return image.topic(name).map(QuorumMetadataSource::toTopicMetadata);
    }

    @Override
    public Optional<TopicMetadata> topic(Uuid topicId) {
        return Optional.ofNullable(image.image().topics().get(toUuid(topicId)))
                .map(QuorumMetadataSource::toTopicMetadata);
    }

    // ---------------------------------------------------------------- mutations

    @Override
    public CompletableFuture<PartitionState> alterPartition(
            Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr) {
        return alterPartition(topicId, partition, leaderEpoch, partitionEpoch, newIsr, Map.of());
    }

    @Override
    public long localBrokerEpoch() {
        return runtime.registeredNodeEpoch();
    }

    @Override
    public CompletableFuture<PartitionState> alterPartition(
            Uuid topicId,
            int partition,
            int leaderEpoch,
            int partitionEpoch,
            List<Integer> newIsr,
            Map<Integer, Long> brokerEpochs) {
        UUID id = toUuid(topicId);
        AlterPartition request =
                new AlterPartition(settings.nodeId(), id, partition, leaderEpoch, partitionEpoch, newIsr, brokerEpochs);
        return runtime.call(request, settings.requestTimeoutMs())
                .thenComposeAsync(
                        response -> {
                            checkError(response, request);
                            return imageIncluding(response.offset());
                        },
                        callbacks)
                .thenApply(committed -> partitionState(committed, id, partition)
                        .orElseThrow(() ->
                                new UnknownTopicException("partition " + topicId + "-" + partition + " was deleted")))
                .handle((state, error) -> {
                    if (error == null) {
                        return CompletableFuture.completedFuture(state);
                    }
                    return CompletableFuture.<PartitionState>failedFuture(unwrap(error));
                })
                .thenCompose(f -> f);
    }

    @Override
    public TopicMetadata createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
        ClusterImage after = mutate(new CreateTopic(name, partitions, replicationFactor, configs));
        return after.topic(name)
                .map(QuorumMetadataSource::toTopicMetadata)
                .orElseThrow(() -> new UnknownTopicException("topic '" + name + "' was deleted right after creation"));
    }

    @Override
    public TopicMetadata createTopic(String name, List<List<Integer>> assignments, Map<String, String> configs) {
        ClusterImage after = mutate(new CreateTopic(name, assignments.size(), -1, configs, assignments));
        return after.topic(name)
                .map(QuorumMetadataSource::toTopicMetadata)
                .orElseThrow(() -> new UnknownTopicException("topic '" + name + "' was deleted right after creation"));
    }

    @Override
    public TopicMetadata deleteTopic(String name) {
        TopicMetadata before = topic(name).orElse(null);
        mutate(new DeleteTopic(name));
        return before != null ? before : new TopicMetadata(name, Uuid.ZERO_UUID, 1, Map.of());
    }

    @Override
    public TopicMetadata replaceConfigs(String name, Map<String, String> configs) {
        ClusterImage after = mutate(new AlterConfigs(name, configs));
        return after.topic(name)
                .map(QuorumMetadataSource::toTopicMetadata)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
    }

    @Override
    public TopicMetadata patchConfigs(String name, Map<String, String> base, Map<String, String> configs) {
        ClusterImage after = mutate(new PatchConfigs(name, base, configs));
        return after.topic(name)
                .map(QuorumMetadataSource::toTopicMetadata)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
    }

    @Override
    public TopicMetadata increasePartitions(String name, int newCount, List<List<Integer>> assignments) {
        ClusterImage after = mutate(new CreatePartitions(name, newCount, assignments));
        return after.topic(name)
                .map(QuorumMetadataSource::toTopicMetadata)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
    }

    @Override
    public void alterReassignment(String topic, int partition, List<Integer> targetReplicas) {
        mutate(new ControllerRequest.AlterReassignment(topic, partition, targetReplicas));
    }

    @Override
    public TopicMetadata increasePartitions(String name, int newCount) {
        ClusterImage after = mutate(new CreatePartitions(name, newCount));
        return after.topic(name)
                .map(QuorumMetadataSource::toTopicMetadata)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
    }

    @Override
    public long allocateProducerIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, got " + count);
        }
        ControllerResponse response = call(new AllocateProducerIds(settings.nodeId(), count));
        await(response.offset());
        return response.value();
    }

    /** Moves leadership back to each partition's first replica where that replica is in sync (all topics if empty). */
    @Override
    public void electPreferredLeaders(Collection<String> topics) {
        mutate(new ElectPreferredLeaders(List.copyOf(topics)));
    }

    @Override
    public void electUncleanLeaders(Collection<String> topics) {
        mutate(new ControllerRequest.ElectUncleanLeaders(List.copyOf(topics)));
    }

    // ---------------------------------------------------------------- ACLs and SCRAM credentials

    /** The image's ACL set mapped once to the metadata layer's entries; the same list until the set changes. */
    private volatile AclView aclView = new AclView(null, List.of());

    private volatile ScramView scramView = new ScramView(null, List.of());

    /** {@code source}: the image's ACL set these entries were mapped from; null before the first. */
    private record AclView(@Nullable Object source, List<AclEntry> entries) {}

    private record ScramView(@Nullable Object source, List<ScramCredentialEntry> entries) {}

    @Override
    public Collection<AclEntry> acls() {
        Set<MetadataRecord.Acl> current = image.image().security().acls();
        AclView view = aclView;
        if (view.source() != current) {
            List<AclEntry> entries = new ArrayList<>(current.size());
            for (MetadataRecord.Acl acl : current) {
                entries.add(new AclEntry(
                        acl.resourceType(),
                        acl.resourceName(),
                        acl.patternType(),
                        acl.principal(),
                        acl.host(),
                        acl.operation(),
                        acl.permissionType()));
            }
            view = new AclView(current, List.copyOf(entries));
            aclView = view;
        }
        return view.entries();
    }

    @Override
    public void alterAcls(List<AclEntry> added, List<AclEntry> removed) {
        List<MetadataRecord> records = new ArrayList<>();
        for (AclEntry acl : removed) {
            records.add(new MetadataRecord.RemoveAcl(toAcl(acl)));
        }
        for (AclEntry acl : added) {
            records.add(new MetadataRecord.AddAcl(toAcl(acl)));
        }
        if (!records.isEmpty()) {
            mutate(new ControllerRequest.AlterSecurity(records));
        }
    }

    private static MetadataRecord.Acl toAcl(AclEntry acl) {
        return new MetadataRecord.Acl(
                acl.resourceType(),
                acl.resourceName(),
                acl.patternType(),
                acl.principal(),
                acl.host(),
                acl.operation(),
                acl.permissionType());
    }

    @Override
    public Collection<ScramCredentialEntry> scramCredentials() {
        Collection<MetadataRecord.ScramCredential> current =
                image.image().security().scramCredentials();
        ScramView view = scramView;
        if (view.source() != current) {
            List<ScramCredentialEntry> entries = new ArrayList<>(current.size());
            for (MetadataRecord.ScramCredential c : current) {
                entries.add(new ScramCredentialEntry(
                        c.user(), c.mechanism(), c.salt(), c.storedKey(), c.serverKey(), c.iterations()));
            }
            view = new ScramView(current, List.copyOf(entries));
            scramView = view;
        }
        return view.entries();
    }

    @Override
    public void alterScramCredentials(List<ScramCredentialEntry> upserts, List<ScramCredentialEntry.Id> deletions) {
        List<MetadataRecord> records = new ArrayList<>();
        for (ScramCredentialEntry.Id id : deletions) {
            records.add(new MetadataRecord.RemoveScramCredential(id.user(), id.mechanism()));
        }
        for (ScramCredentialEntry c : upserts) {
            records.add(new MetadataRecord.ScramCredential(
                    c.user(), c.mechanism(), c.salt(), c.storedKey(), c.serverKey(), c.iterations()));
        }
        if (!records.isEmpty()) {
            mutate(new ControllerRequest.AlterSecurity(records));
        }
    }

    @Override
    public boolean caughtUp() {
        return published;
    }

    @Override
    public boolean hasQuorum() {
        return true;
    }

    @Override
    public boolean isActiveController() {
        return runtime.isActive();
    }

    @Override
    public long appliedMetadataOffset() {
        return image.endOffset() - 1;
    }

    @Override
    public CompletableFuture<QuorumStatus> describeQuorum() {
        try {
            ensureOpen();
        } catch (IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<QuorumStatus> result = new CompletableFuture<>();
        // Completed on the callback thread, never on the quorum loop: the caller may do I/O when it completes.
        runtime.call(new DescribeQuorum(), DESCRIBE_QUORUM_TIMEOUT_MS)
                .whenCompleteAsync(
                        (response, error) -> {
                            if (error != null) {
                                Throwable cause = unwrap(error);
                                int leader = runtime.knownLeader();
                                result.completeExceptionally(
                                        cause instanceof TimeoutException && leader < 0
                                                ? new QuorumLeaderUnknownException(
                                                        "node " + settings.nodeId() + " knows no leader of the "
                                                                + "metadata quorum (an election is under way); retry shortly")
                                                : cause);
                            } else if (response.quorum() == null) {
                                result.completeExceptionally(new IllegalStateException(
                                        "DescribeQuorum answered " + response.error() + ": " + response.message()));
                            } else {
                                result.complete(toQuorumStatus(response.quorum()));
                            }
                        },
                        task -> {
                            try {
                                callbacks.execute(task);
                            } catch (java.util.concurrent.RejectedExecutionException closing) {
                                task.run(); // closed meanwhile: still answer the caller
                            }
                        });
        return result;
    }

    private QuorumStatus toQuorumStatus(QuorumDescription quorum) {
        List<QuorumStatus.VoterNode> nodes = new ArrayList<>();
        settings.voters()
                .forEach((id, address) -> nodes.add(new QuorumStatus.VoterNode(
                        id, CONTROLLER_LISTENER_NAME, address.getHostString(), address.getPort())));
        nodes.sort(java.util.Comparator.comparingInt(QuorumStatus.VoterNode::nodeId));
        return new QuorumStatus(
                quorum.leaderId(),
                quorum.leaderEpoch(),
                quorum.highWatermark(),
                toReplicas(quorum.voters()),
                toReplicas(quorum.observers()),
                nodes);
    }

    private static List<QuorumStatus.Replica> toReplicas(List<QuorumDescription.Replica> replicas) {
        List<QuorumStatus.Replica> converted = new ArrayList<>(replicas.size());
        for (QuorumDescription.Replica r : replicas) {
            converted.add(new QuorumStatus.Replica(
                    r.nodeId(),
                    r.logEndOffset(),
                    r.lastFetchMs().orElse(-1),
                    r.lastCaughtUpMs().orElse(-1)));
        }
        return converted;
    }

    private ClusterImage mutate(ControllerRequest request) {
        return await(call(request).offset());
    }

    private ControllerResponse call(ControllerRequest request) {
        ensureOpen();
        long timeoutMs = settings.requestTimeoutMs();
        ControllerResponse response;
        try {
            response = runtime.call(request, timeoutMs).get(timeoutMs + 1_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted while waiting for the metadata controller");
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("no answer from the metadata controller within " + timeoutMs + " ms");
        }
        checkError(response, request);
        return response;
    }

    private ClusterImage await(long offset) {
        long timeoutMs = settings.requestTimeoutMs();
        try {
            return imageIncluding(offset).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TimeoutException("interrupted while waiting for metadata offset " + offset);
        } catch (ExecutionException e) {
            throw unwrap(e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new TimeoutException("node " + settings.nodeId() + " did not see metadata offset " + offset
                    + " committed within " + timeoutMs + " ms");
        }
    }

    private static void checkError(ControllerResponse response, ControllerRequest request) {
        switch (response.error()) {
            case NONE:
                return;
            case TOPIC_EXISTS:
                throw new TopicExistsException(request instanceof CreateTopic c ? c.name() : response.message());
            case UNKNOWN_TOPIC:
                throw new UnknownTopicException(response.message());
            case INVALID_REPLICATION_FACTOR:
                throw new InvalidReplicationFactorException(response.message());
            case INVALID_REPLICA_ASSIGNMENT:
                throw new InvalidReplicaAssignmentException(response.message());
            case STALE_EPOCH:
                throw new StaleEpochException(response.message());
            case NO_REASSIGNMENT_IN_PROGRESS:
                throw new NoReassignmentInProgressException(response.message());
            case INVALID_REQUEST:
                throw new IllegalArgumentException(response.message());
            default:
                throw new IllegalStateException(response.error() + ": " + response.message());
        }
    }

    private static RuntimeException unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof java.util.concurrent.TimeoutException) {
            return new TimeoutException(cause.getMessage());
        }
        return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("metadata source of node " + settings.nodeId() + " is closed");
        }
        Throwable fatal = runtime.fatalError();
        if (fatal != null) {
            throw new IllegalStateException(
                    "the metadata quorum of node " + settings.nodeId() + " stopped after a fatal error: " + fatal,
                    fatal);
        }
    }

    // ---------------------------------------------------------------- conversions and lifecycle

    private static TopicMetadata toTopicMetadata(TopicImage topic) {
        return new TopicMetadata(
                topic.name(),
                toKafkaUuid(topic.topicId()),
                Math.max(1, topic.partitions().size()),
                topic.configs());
    }

    static UUID toUuid(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static Uuid toKafkaUuid(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    @Override
    public boolean holdsReadLease() {
        return runtime.readLease().holds();
    }

    /** For tests: a node that stops heartbeating but keeps following the log. */
    void pauseHeartbeats(boolean paused) {
        runtime.pauseHeartbeats(paused);
    }

    /** For tests: {role, epoch, leader, ...} of the local Raft node. */
    String describe() {
        try {
            return runtime.describe().get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            return "unavailable: " + e;
        }
    }

    /** Leader id the local Raft node knows (-1 if none), and 1 if this node is the active controller. */
    int[] leaderInfo() {
        try {
            return runtime.leaderInfo().get(2, TimeUnit.SECONDS);
        } catch (Exception e) {
            return new int[] {-1, 0};
        }
    }

    @Override
    public void controlledShutdown() {
        if (!closed && !shutDown) {
            shutDown = true;
            runtime.controlledShutdown(settings.shutdownTimeoutMs());
        }
    }

    @Override
    public void closeAbruptly() {
        shutDown = true;
        abrupt = true;
        close();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        controlledShutdown();
        closed = true;
        long nodeEpoch = runtime.registeredNodeEpoch();
        runtime.close();
        // The broker closed its partition logs (flushed) before this: what it acknowledged is on disk.
        if (!abrupt && nodeEpoch >= 0) {
            try {
                cleanShutdownMarker.write(nodeEpoch);
            } catch (java.io.IOException e) {
                LOGGER.warn(
                        "[QuorumMetadataSource {}] could not write the clean-shutdown marker; the next start counts as"
                                + " unclean",
                        settings.nodeId(),
                        e);
            }
        }
        callbacks.shutdown();
        try {
            callbacks.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
