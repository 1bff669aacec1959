package dev.strait.broker.partition;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.StaleEpochException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * A controller that decides nothing by itself, for scenario tests over real {@link ReplicaManager}s: the test
 * elects leaders, and decides for every AlterPartition whether it is committed, whether its answer arrives, and
 * which answer. A node's view can be cut off from the controller, and then shows the metadata as it was at the
 * cut. Views never call their change listeners: the test reconciles a node when it delivers metadata to it, so
 * every step happens in the order the test writes.
 *
 * <p>Thread-safe (AlterPartition arrives from whichever thread proposed the change).
 */
final class ScriptedController {

    private record Key(Uuid topicId, int partition) {}

    /** An AlterPartition the controller received; the test decides its fate. */
    final class AlterRequest {
        final int from;
        final Uuid topicId;
        final int partition;
        final int leaderEpoch;
        final int partitionEpoch;
        final List<Integer> newIsr;
        final CompletableFuture<PartitionState> answer = new CompletableFuture<>();

        AlterRequest(int from, Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr) {
            this.from = from;
            this.topicId = topicId;
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
            this.partitionEpoch = partitionEpoch;
            this.newIsr = List.copyOf(newIsr);
        }

        /**
         * Decides it as the real controller does: committed (a new partition epoch) if its epochs are current,
         * else refused with STALE_EPOCH. The answer is not sent yet.
         *
         * @return whether it was committed
         */
        boolean commit() {
            synchronized (ScriptedController.this) {
                Key key = new Key(topicId, partition);
                PartitionState current = partitions.get(key);
                if (current.leader() != from
                        || current.leaderEpoch() != leaderEpoch
                        || current.partitionEpoch() != partitionEpoch) {
                    return false;
                }
                partitions.put(
                        key,
                        new PartitionState(
                                current.leader(),
                                current.leaderEpoch(),
                                current.replicas(),
                                newIsr,
                                current.partitionEpoch() + 1));
                return true;
            }
        }

        /** Commits if it can and sends the answer: the new state, or STALE_EPOCH. */
        void commitAndAnswer() {
            if (commit()) {
                answer.complete(state(topicId, partition));
            } else {
                refuseStale();
            }
        }

        /** The answer is lost (the controller failed over, the connection dropped): the leader's request times out. */
        void loseAnswer() {
            answer.completeExceptionally(new TimeoutException("no answer from the controller"));
        }

        void refuseStale() {
            answer.completeExceptionally(new StaleEpochException("AlterPartition with leader epoch " + leaderEpoch
                    + " and partition epoch " + partitionEpoch + " refused: current " + state(topicId, partition)));
        }

        /** The controller says it did not apply the change (a replica it names is fenced, say). */
        void refuseInvalid() {
            answer.completeExceptionally(new IllegalArgumentException("replica is fenced and cannot join the ISR"));
        }

        @Override
        public String toString() {
            return "AlterPartition from " + from + " epochs " + leaderEpoch + "/" + partitionEpoch + " isr " + newIsr;
        }
    }

    private final Map<String, TopicMetadata> topics = new LinkedHashMap<>();
    private final Map<Key, PartitionState> partitions = new HashMap<>();
    private final Map<Integer, BrokerRegistration> brokers = new LinkedHashMap<>();
    private final Deque<AlterRequest> alterRequests = new ArrayDeque<>();
    /** Per cut-off node, the metadata it last saw. */
    private final Map<Integer, Map<Key, PartitionState>> frozen = new HashMap<>();

    synchronized void register(int nodeId, int port) {
        brokers.put(nodeId, new BrokerRegistration(nodeId, "127.0.0.1", port, false));
    }

    /** A one-partition topic led by the first replica in epoch 0, every replica in the ISR. */
    synchronized TopicMetadata createTopic(String name, List<Integer> replicas, Map<String, String> configs) {
        TopicMetadata topic = new TopicMetadata(name, Uuid.randomUuid(), 1, configs);
        topics.put(name, topic);
        partitions.put(new Key(topic.topicId(), 0), new PartitionState(replicas.get(0), 0, replicas, replicas, 0));
        return topic;
    }

    synchronized PartitionState state(String topic) {
        return partitions.get(new Key(topics.get(topic).topicId(), 0));
    }

    private synchronized PartitionState state(Uuid topicId, int partition) {
        return partitions.get(new Key(topicId, partition));
    }

    /** A decision of the controller's own: a new leader (new leader epoch) and ISR. */
    synchronized PartitionState elect(String topic, int leader, List<Integer> isr) {
        Key key = new Key(topics.get(topic).topicId(), 0);
        PartitionState current = partitions.get(key);
        PartitionState next = new PartitionState(
                leader, current.leaderEpoch() + 1, current.replicas(), isr, current.partitionEpoch() + 1);
        partitions.put(key, next);
        return next;
    }

    /** A decision of the controller's own: a new ISR in the same leader epoch (a fenced member removed, say). */
    synchronized PartitionState changeIsr(String topic, List<Integer> isr) {
        Key key = new Key(topics.get(topic).topicId(), 0);
        PartitionState current = partitions.get(key);
        PartitionState next = new PartitionState(
                current.leader(), current.leaderEpoch(), current.replicas(), isr, current.partitionEpoch() + 1);
        partitions.put(key, next);
        return next;
    }

    /** The node no longer receives metadata: its view keeps what it has now. */
    synchronized void cutOff(int nodeId) {
        frozen.put(nodeId, new HashMap<>(partitions));
    }

    synchronized void reconnect(int nodeId) {
        frozen.remove(nodeId);
    }

    /** The oldest AlterPartition not yet taken, or empty. */
    synchronized Optional<AlterRequest> nextAlterRequest() {
        return Optional.ofNullable(alterRequests.pollFirst());
    }

    MetadataSource view(int nodeId) {
        return new View(nodeId);
    }

    private final class View implements MetadataSource {
        private final int nodeId;

        View(int nodeId) {
            this.nodeId = nodeId;
        }

        @Override
        public String clusterId() {
            return "scripted";
        }

        @Override
        public int localNodeId() {
            return nodeId;
        }

        @Override
        public void registerLocalBroker(String host, int port) {
            register(nodeId, port);
        }

        @Override
        public Collection<BrokerRegistration> brokers() {
            synchronized (ScriptedController.this) {
                return List.copyOf(brokers.values());
            }
        }

        @Override
        public Optional<PartitionState> partitionState(Uuid topicId, int partition) {
            synchronized (ScriptedController.this) {
                Map<Key, PartitionState> seen = frozen.getOrDefault(nodeId, partitions);
                return Optional.ofNullable(seen.get(new Key(topicId, partition)));
            }
        }

        @Override
        public void addChangeListener(Runnable listener) {
            // The test delivers metadata by reconciling the node itself.
        }

        @Override
        public CompletableFuture<PartitionState> alterPartition(
                Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr) {
            AlterRequest request = new AlterRequest(nodeId, topicId, partition, leaderEpoch, partitionEpoch, newIsr);
            synchronized (ScriptedController.this) {
                alterRequests.addLast(request);
            }
            return request.answer;
        }

        @Override
        public Collection<TopicMetadata> topics() {
            synchronized (ScriptedController.this) {
                return List.copyOf(topics.values());
            }
        }

        @Override
        public Optional<TopicMetadata> topic(String name) {
            synchronized (ScriptedController.this) {
                return Optional.ofNullable(topics.get(name));
            }
        }

        @Override
        public Optional<TopicMetadata> topic(Uuid topicId) {
            synchronized (ScriptedController.this) {
                return topics.values().stream()
                        .filter(t -> t.topicId().equals(topicId))
                        .findFirst();
            }
        }

        @Override
        public TopicMetadata createTopic(
                String name, int partitionCount, int replicationFactor, Map<String, String> configs) {
            synchronized (ScriptedController.this) {
                if (topics.containsKey(name)) {
                    throw new TopicExistsException(name);
                }
                return ScriptedController.this.createTopic(name, List.copyOf(brokers.keySet()), configs);
            }
        }

        @Override
        public TopicMetadata deleteTopic(String name) {
            throw new UnknownTopicException("the scripted controller does not delete topics");
        }

        @Override
        public TopicMetadata replaceConfigs(String name, Map<String, String> configs) {
            synchronized (ScriptedController.this) {
                TopicMetadata updated = topics.get(name).withConfigs(configs);
                topics.put(name, updated);
                return updated;
            }
        }

        @Override
        public TopicMetadata increasePartitions(String name, int newCount) {
            throw new UnsupportedOperationException("the scripted controller keeps one partition per topic");
        }

        @Override
        public long allocateProducerIds(int count) {
            return 1_000;
        }

        @Override
        public void close() {}
    }
}
