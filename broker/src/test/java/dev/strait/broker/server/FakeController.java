package dev.strait.broker.server;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.StaleEpochException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.Uuid;

/**
 * A test-only controller shared by the brokers of one JVM until the Raft quorum exists: it holds topics, partition
 * states and broker registrations in memory and commits changes at once. Like Kafka's controller it places replicas
 * round-robin, elects the first live ISR member, removes a fenced broker from every ISR (electing a new leader
 * where it led, with a new leader epoch), refuses AlterPartition with stale epochs, and never elects outside the
 * ISR. Unlike Kafka it places replicas on every node id of the cluster, registered or not (so the first broker
 * can create the offsets topic with the default factor). Tests may also move leadership themselves ({@link #electLeader}). Listeners run on one notifier thread.
 *
 * <p>Thread-safe: every method is synchronized; listeners are called without the lock.
 */
final class FakeController {

    private record Key(Uuid topicId, int partition) {}

    private final String clusterId = Uuid.randomUuid().toString();
    private final int defaultReplicationFactor;
    private final Map<String, TopicMetadata> topics = new LinkedHashMap<>();
    private final Map<Key, PartitionState> partitions = new HashMap<>();
    private final Map<Integer, BrokerRegistration> brokers = new TreeMap<>();
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    private final ExecutorService notifier = Executors.newSingleThreadExecutor(r -> {
        Thread thread = new Thread(r, "fake-controller-notifier");
        thread.setDaemon(true);
        return thread;
    });
    private long nextProducerId = 1000;

    private final int clusterSize;

    /**
     * @param clusterSize the node ids are 0 .. clusterSize-1; replicas are placed over all of them, started or not,
     *                    so that the first broker can create internal topics with the default replication factor
     */
    FakeController(int defaultReplicationFactor, int clusterSize) {
        this.defaultReplicationFactor = defaultReplicationFactor;
        this.clusterSize = clusterSize;
    }

    /** A broker's view, closed (= fenced) when the broker stops. */
    MetadataSource viewFor(int nodeId) {
        return new NodeView(nodeId);
    }

    private void notifyListeners() {
        for (Runnable listener : listeners) {
            notifier.execute(listener);
        }
    }

    synchronized Optional<PartitionState> state(String topic, int partition) {
        TopicMetadata t = topics.get(topic);
        return t == null ? Optional.empty() : Optional.ofNullable(partitions.get(new Key(t.topicId(), partition)));
    }

    /** Moves leadership of a partition to {@code newLeader} (which must be in the ISR) in a new leader epoch. */
    void electLeader(String topic, int partition, int newLeader) {
        synchronized (this) {
            Key key = new Key(topics.get(topic).topicId(), partition);
            PartitionState current = partitions.get(key);
            if (!current.isr().contains(newLeader)) {
                throw new IllegalArgumentException(newLeader + " is not in the ISR " + current.isr());
            }
            partitions.put(
                    key,
                    new PartitionState(
                            newLeader,
                            current.leaderEpoch() + 1,
                            current.replicas(),
                            current.isr(),
                            current.partitionEpoch() + 1));
        }
        notifyListeners();
    }

    private void register(int nodeId, String host, int port) {
        synchronized (this) {
            brokers.put(nodeId, new BrokerRegistration(nodeId, host, port, false));
            // Leaderless partitions whose last ISR member is back get it as leader.
            for (Map.Entry<Key, PartitionState> entry : partitions.entrySet()) {
                PartitionState p = entry.getValue();
                if (!p.hasLeader() && p.isr().contains(nodeId)) {
                    entry.setValue(new PartitionState(
                            nodeId, p.leaderEpoch() + 1, p.replicas(), p.isr(), p.partitionEpoch() + 1));
                }
            }
        }
        notifyListeners();
    }

    /** The broker stopped: fenced, out of every ISR, and replaced as leader by a live ISR member. */
    void fence(int nodeId) {
        synchronized (this) {
            BrokerRegistration registration = brokers.get(nodeId);
            if (registration == null || registration.fenced()) {
                return;
            }
            brokers.put(nodeId, new BrokerRegistration(nodeId, registration.host(), registration.port(), true));
            for (Map.Entry<Key, PartitionState> entry : partitions.entrySet()) {
                PartitionState p = entry.getValue();
                if (!p.isr().contains(nodeId)) {
                    continue;
                }
                List<Integer> isr = new ArrayList<>(p.isr());
                if (isr.size() > 1) {
                    isr.remove(Integer.valueOf(nodeId));
                }
                if (p.leader() == nodeId) {
                    int leader = isr.stream()
                            .filter(id -> id != nodeId && isLive(id))
                            .findFirst()
                            .orElse(PartitionState.NO_LEADER);
                    entry.setValue(
                            new PartitionState(leader, p.leaderEpoch() + 1, p.replicas(), isr, p.partitionEpoch() + 1));
                } else {
                    entry.setValue(
                            new PartitionState(p.leader(), p.leaderEpoch(), p.replicas(), isr, p.partitionEpoch() + 1));
                }
            }
        }
        notifyListeners();
    }

    private boolean isLive(int nodeId) {
        BrokerRegistration registration = brokers.get(nodeId);
        return registration != null && !registration.fenced();
    }

    void close() {
        notifier.shutdownNow();
    }

    private final class NodeView implements MetadataSource {
        private final int nodeId;

        NodeView(int nodeId) {
            this.nodeId = nodeId;
        }

        @Override
        public String clusterId() {
            return clusterId;
        }

        @Override
        public int localNodeId() {
            return nodeId;
        }

        @Override
        public void registerLocalBroker(String host, int port) {
            register(nodeId, host, port);
        }

        @Override
        public Collection<BrokerRegistration> brokers() {
            synchronized (FakeController.this) {
                return List.copyOf(brokers.values());
            }
        }

        @Override
        public Optional<PartitionState> partitionState(Uuid topicId, int partition) {
            synchronized (FakeController.this) {
                return Optional.ofNullable(partitions.get(new Key(topicId, partition)));
            }
        }

        @Override
        public void addChangeListener(Runnable listener) {
            listeners.add(listener);
        }

        @Override
        public CompletableFuture<PartitionState> alterPartition(
                Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr) {
            PartitionState next;
            synchronized (FakeController.this) {
                Key key = new Key(topicId, partition);
                PartitionState current = partitions.get(key);
                if (current == null
                        || current.leaderEpoch() != leaderEpoch
                        || current.partitionEpoch() != partitionEpoch
                        || current.leader() != nodeId) {
                    return CompletableFuture.failedFuture(new StaleEpochException("stale AlterPartition from " + nodeId
                            + ": epochs " + leaderEpoch + "/" + partitionEpoch + ", current " + current));
                }
                next = new PartitionState(
                        current.leader(),
                        current.leaderEpoch(),
                        current.replicas(),
                        newIsr,
                        current.partitionEpoch() + 1);
                partitions.put(key, next);
            }
            notifyListeners();
            return CompletableFuture.completedFuture(next);
        }

        @Override
        public Collection<TopicMetadata> topics() {
            synchronized (FakeController.this) {
                return List.copyOf(topics.values());
            }
        }

        @Override
        public Optional<TopicMetadata> topic(String name) {
            synchronized (FakeController.this) {
                return Optional.ofNullable(topics.get(name));
            }
        }

        @Override
        public Optional<TopicMetadata> topic(Uuid topicId) {
            synchronized (FakeController.this) {
                return topics.values().stream()
                        .filter(t -> t.topicId().equals(topicId))
                        .findFirst();
            }
        }

        @Override
        public TopicMetadata createTopic(
                String name, int partitionCount, int replicationFactor, Map<String, String> configs) {
            TopicMetadata topic;
            synchronized (FakeController.this) {
                if (topics.containsKey(name)) {
                    throw new TopicExistsException(name);
                }
                int factor = replicationFactor == -1 ? defaultReplicationFactor : replicationFactor;
                List<Integer> nodes =
                        java.util.stream.IntStream.range(0, clusterSize).boxed().toList();
                if (factor > nodes.size()) {
                    throw new InvalidReplicationFactorException(
                            "Replication factor: " + factor + " larger than available brokers: " + nodes.size() + ".");
                }
                topic = new TopicMetadata(name, Uuid.randomUuid(), partitionCount, configs);
                topics.put(name, topic);
                addPartitions(topic, 0, factor, nodes);
            }
            notifyListeners();
            return topic;
        }

        private void addPartitions(TopicMetadata topic, int from, int factor, List<Integer> live) {
            for (int i = from; i < topic.partitions(); i++) {
                List<Integer> replicas = new ArrayList<>();
                for (int r = 0; r < factor; r++) {
                    replicas.add(live.get((i + r) % live.size()));
                }
                partitions.put(
                        new Key(topic.topicId(), i), new PartitionState(replicas.get(0), 0, replicas, replicas, 0));
            }
        }

        @Override
        public TopicMetadata deleteTopic(String name) {
            TopicMetadata topic;
            synchronized (FakeController.this) {
                topic = topics.remove(name);
                if (topic == null) {
                    throw new UnknownTopicException("unknown topic '" + name + "'");
                }
                for (int i = 0; i < topic.partitions(); i++) {
                    partitions.remove(new Key(topic.topicId(), i));
                }
            }
            notifyListeners();
            return topic;
        }

        @Override
        public TopicMetadata replaceConfigs(String name, Map<String, String> configs) {
            TopicMetadata topic;
            synchronized (FakeController.this) {
                TopicMetadata current = topics.get(name);
                if (current == null) {
                    throw new UnknownTopicException("unknown topic '" + name + "'");
                }
                topic = current.withConfigs(configs);
                topics.put(name, topic);
            }
            notifyListeners();
            return topic;
        }

        @Override
        public TopicMetadata increasePartitions(String name, int newCount) {
            TopicMetadata topic;
            synchronized (FakeController.this) {
                TopicMetadata current = topics.get(name);
                if (current == null) {
                    throw new UnknownTopicException("unknown topic '" + name + "'");
                }
                if (newCount <= current.partitions()) {
                    throw new IllegalArgumentException("partition count must grow");
                }
                int factor =
                        partitions.get(new Key(current.topicId(), 0)).replicas().size();
                topic = current.withPartitions(newCount);
                topics.put(name, topic);
                addPartitions(
                        topic,
                        current.partitions(),
                        factor,
                        java.util.stream.IntStream.range(0, clusterSize).boxed().toList());
            }
            notifyListeners();
            return topic;
        }

        @Override
        public long allocateProducerIds(int count) {
            synchronized (FakeController.this) {
                long first = nextProducerId;
                nextProducerId += count;
                return first;
            }
        }

        @Override
        public void close() {
            fence(nodeId);
        }
    }
}
