package dev.strait.broker.metadata;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;

/**
 * Durable cluster metadata: the cluster id and the topics. In a cluster it follows the Raft metadata quorum
 * ({@code controller.QuorumMetadataSource}); a standalone node keeps it in a local file
 * ({@link FileMetadataSource}). Callers must not assume either.
 *
 * <p>Implementations are thread-safe; every mutation is durable when the method returns.
 */
public interface MetadataSource extends AutoCloseable {

    String clusterId();

    /** This node's {@code node.id}. */
    int localNodeId();

    /**
     * Announces this node's client listener once it is bound. In a cluster this registers the broker with the
     * controller; alone, it only makes the node list itself.
     */
    void registerLocalBroker(String host, int port);

    /**
     * Announces this node's broker listeners: {@code host}/{@code port} of the inter-broker listener (what the
     * other brokers' replica fetchers dial) and every broker listener in {@code endpoints}, which Metadata,
     * FindCoordinator and DescribeCluster answer from, per listener. Sources that keep no endpoints ignore them.
     */
    default void registerLocalBroker(String host, int port, List<BrokerRegistration.Endpoint> endpoints) {
        registerLocalBroker(host, port);
    }

    /**
     * Whether no other node can have been made leader in this node's place yet, so that a leader may serve reads
     * from its memory (the group coordinator's committed offsets). Alone it always may; in a quorum, see
     * {@code dev.strait.broker.controller.ReadLease}.
     */
    default boolean holdsReadLease() {
        return true;
    }

    /** Every broker the cluster knows, fenced ones included (clients are only told about unfenced ones). */
    Collection<BrokerRegistration> brokers();

    /** Leader, epochs, replicas and ISR of a partition; empty if the topic or partition does not exist. */
    Optional<PartitionState> partitionState(Uuid topicId, int partition);

    /**
     * Runs {@code listener} after every committed change (topics, partitions, brokers), on a thread of the
     * metadata source; the listener must not block. The replica manager reconciles its roles from it.
     */
    void addChangeListener(Runnable listener);

    /**
     * A partition leader asks the controller to change the ISR (Kafka's AlterPartition). Completes with the new
     * committed state, or exceptionally with {@link StaleEpochException} when {@code leaderEpoch} or
     * {@code partitionEpoch} is not current.
     */
    CompletableFuture<PartitionState> alterPartition(
            Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr);

    /**
     * As above, naming for replicas the ISR gains the broker epoch they fetched with (KIP-903): the controller
     * refuses one that registered again since. A source without broker epochs ignores them.
     */
    default CompletableFuture<PartitionState> alterPartition(
            Uuid topicId,
            int partition,
            int leaderEpoch,
            int partitionEpoch,
            List<Integer> newIsr,
            Map<Integer, Long> brokerEpochs) {
        return alterPartition(topicId, partition, leaderEpoch, partitionEpoch, newIsr);
    }

    /** This node's current broker epoch (its registration), or -1 if it has none or the source has no epochs. */
    default long localBrokerEpoch() {
        return -1;
    }

    Collection<TopicMetadata> topics();

    Optional<TopicMetadata> topic(String name);

    Optional<TopicMetadata> topic(Uuid topicId);

    /**
     * Adds a topic with a fresh id.
     *
     * @throws TopicExistsException if a topic of that name exists
     */
    default TopicMetadata createTopic(String name, int partitions, Map<String, String> configs) {
        return createTopic(name, partitions, -1, configs);
    }

    /**
     * Adds a topic with a fresh id and its partitions spread over the brokers.
     *
     * @param replicationFactor replicas per partition; -1 for the cluster's default
     * @throws TopicExistsException             if a topic of that name exists
     * @throws InvalidReplicationFactorException if there are fewer brokers than replicas asked for
     */
    TopicMetadata createTopic(String name, int partitions, int replicationFactor, Map<String, String> configs);

    /**
     * Adds a topic whose partitions get the replicas given, partition {@code i} the list at index {@code i}, the
     * first replica in the ISR leading.
     *
     * @throws TopicExistsException                if a topic of that name exists
     * @throws InvalidReplicaAssignmentException   if a list is empty, names a broker twice or one that is not
     *                                             registered, lists differ in size, or no replica of a partition is
     *                                             unfenced
     */
    default TopicMetadata createTopic(String name, List<List<Integer>> assignments, Map<String, String> configs) {
        throw new InvalidReplicaAssignmentException("this metadata source cannot place replicas by hand");
    }

    /**
     * Removes a topic.
     *
     * @throws UnknownTopicException if there is none of that name
     */
    TopicMetadata deleteTopic(String name);

    /**
     * Replaces a topic's config overrides.
     *
     * @throws UnknownTopicException if there is none of that name
     */
    TopicMetadata replaceConfigs(String name, Map<String, String> configs);

    /**
     * Changes a topic's config overrides from {@code base} (what the writer read) to {@code configs}: only the keys
     * that differ between the two move, applied to the overrides as they are now ({@link ConfigPatch}), so that a
     * change another node made meanwhile to other keys is kept. Sources that several nodes write apply it atomically
     * where the overrides are decided; this default is for single-writer sources.
     *
     * @throws UnknownTopicException if there is none of that name
     */
    default TopicMetadata patchConfigs(String name, Map<String, String> base, Map<String, String> configs) {
        TopicMetadata current =
                topic(name).orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
        return replaceConfigs(name, ConfigPatch.apply(current.configs(), base, configs));
    }

    /**
     * Raises a topic's partition count; existing partitions keep their numbers.
     *
     * @throws UnknownTopicException    if there is none of that name
     * @throws IllegalArgumentException if {@code newCount} is not above the current count
     */
    TopicMetadata increasePartitions(String name, int newCount);

    /**
     * Raises a topic's partition count, added partition {@code i} (from the first new one) on the replicas
     * {@code assignments.get(i)}, the first replica in the ISR leading.
     *
     * @throws UnknownTopicException              if there is none of that name
     * @throws IllegalArgumentException           if {@code newCount} is not above the current count
     * @throws InvalidReplicaAssignmentException  if there is not one list per added partition, a list is empty, names
     *                                            a broker twice or one that is not registered, its size is not the
     *                                            topic's replication factor, or no replica of a partition is unfenced
     */
    default TopicMetadata increasePartitions(String name, int newCount, List<List<Integer>> assignments) {
        throw new InvalidReplicaAssignmentException("this metadata source cannot place replicas by hand");
    }

    /**
     * Starts, replaces or (with {@code targetReplicas} null) cancels the reassignment of one partition (KIP-455):
     * while it runs the partition's replicas are the union of the current and the target ones, the added ones
     * catching up; once every target replica is in the ISR, the replicas become the target. Returns once the
     * change is committed.
     *
     * @throws UnknownTopicException              if the topic or the partition does not exist
     * @throws InvalidReplicaAssignmentException  if the target is empty, names a broker twice or an unregistered one
     * @throws NoReassignmentInProgressException  if a cancel names a partition that is not being reassigned
     */
    default void alterReassignment(String topic, int partition, List<Integer> targetReplicas) {
        TopicMetadata metadata =
                topic(topic).orElseThrow(() -> new UnknownTopicException("unknown topic '" + topic + "'"));
        if (partition < 0 || partition >= metadata.partitions()) {
            throw new UnknownTopicException("unknown partition " + topic + "-" + partition);
        }
        if (targetReplicas == null) {
            throw new NoReassignmentInProgressException(
                    "No ongoing reassignment for partition " + topic + "-" + partition + ".");
        }
        ReplicaAssignments.check(List.of(targetReplicas), 1, id -> id == localNodeId());
    }

    /**
     * Reserves {@code count} producer ids that were never handed out before, also across restarts.
     *
     * @return the first id of the block
     */
    long allocateProducerIds(int count);

    /**
     * Asks the controller to make each partition's preferred replica (the first) its leader where that replica is
     * in the ISR (Kafka's preferred leader election), and waits until the result is committed. Alone, every
     * partition is already led by its only replica, so this does nothing.
     */
    default void electPreferredLeaders(Collection<String> topics) {}

    /**
     * Gives each leaderless partition of the topics that has no live in-sync or eligible replica a live replica as
     * leader, though it may lack acknowledged records (an operator's unclean election). A source whose partitions
     * cannot be leaderless so does nothing.
     */
    default void electUncleanLeaders(Collection<String> topics) {}

    /**
     * Before the node stops serving: asks the controller to move this node's leaderships elsewhere (controlled
     * shutdown), bounded in time. Alone, a node has nowhere to move them, so this does nothing.
     */
    default void controlledShutdown() {}

    /**
     * The ACLs of the cluster. The same collection instance is returned until they change, so that a reader can
     * cache what it derives from them by identity.
     */
    default Collection<AclEntry> acls() {
        return List.of();
    }

    /**
     * Adds and removes ACLs in one durable change (set semantics: adding a present ACL or removing an absent one
     * does nothing).
     */
    default void alterAcls(List<AclEntry> added, List<AclEntry> removed) {
        throw new UnsupportedOperationException("this metadata source keeps no ACLs");
    }

    /** Every user's SCRAM credentials; the same instance until they change. */
    default Collection<ScramCredentialEntry> scramCredentials() {
        return List.of();
    }

    /**
     * Sets ({@code upserts}) and removes ({@code deletions}) SCRAM credentials in one durable change.
     */
    default void alterScramCredentials(List<ScramCredentialEntry> upserts, List<ScramCredentialEntry.Id> deletions) {
        throw new UnsupportedOperationException("this metadata source keeps no SCRAM credentials");
    }

    /**
     * Whether reads show the cluster's metadata: false on a node of a quorum until it has caught up with the
     * quorum's high watermark (until then its image is empty). A decision that reads "what is missing" must wait
     * for it, or it would take every later change for absent.
     */
    default boolean caughtUp() {
        return true;
    }

    /**
     * Whether this node is the cluster's active controller (the one that decides leaders and ISRs); a standalone
     * node is its own. For the metrics: may lag the quorum by one round of its loop.
     */
    default boolean isActiveController() {
        return true;
    }

    /** The offset of the last metadata log entry this node's image applied; -1 if none or the source has no log. */
    default long appliedMetadataOffset() {
        return -1;
    }

    /** Whether this source is a Raft quorum that can describe itself ({@link #describeQuorum()}). */
    default boolean hasQuorum() {
        return false;
    }

    /**
     * Asks the quorum's leader for its view of the voters and observers (Kafka's DescribeQuorum), wherever it
     * runs. Completes, never on the caller's thread, with the description, or exceptionally with
     * {@link QuorumLeaderUnknownException} when no leader is known in time, or a timeout when the known leader did
     * not answer in time. A source without a quorum fails with {@link UnsupportedOperationException}.
     */
    default CompletableFuture<QuorumStatus> describeQuorum() {
        return CompletableFuture.failedFuture(
                new UnsupportedOperationException("this metadata source is not a " + "Raft quorum"));
    }

    /** Closes without a controlled shutdown, as a crash would leave the cluster (tests and demos of failover). */
    default void closeAbruptly() {
        close();
    }

    @Override
    void close();
}
