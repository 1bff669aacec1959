package dev.strait.broker.metadata;

import java.io.IOException;
import java.io.OutputStream;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;

/**
 * {@link MetadataSource} kept in one properties file, {@code strait-metadata.properties}, in a log directory.
 * Every change rewrites the whole file atomically (temp file, fsync, rename). Format, version 1:
 * <pre>
 * version=1
 * cluster.id=&lt;base64 uuid&gt;
 * next.producer.id=&lt;first producer id not yet reserved&gt;
 * topic.count=N
 * topic.&lt;i&gt;.name / .id / .partitions / .config.&lt;key&gt;
 * acl.count=N                       (optional: ACLs, in Kafka's codes)
 * acl.&lt;i&gt;.resource.type / .resource.name / .pattern.type / .principal / .host / .operation / .permission
 * scram.count=N                     (optional: SCRAM credentials, keys base64)
 * scram.&lt;i&gt;.user / .mechanism / .salt / .stored.key / .server.key / .iterations
 * </pre>
 */
public final class FileMetadataSource implements MetadataSource {

    public static final String FILE_NAME = "strait-metadata.properties";
    private static final String VERSION = "1";

    private final Path file;
    private final String clusterId;
    private final int nodeId;
    private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    /** Null until this node registers. */
    private volatile @Nullable BrokerRegistration self;

    private final Map<String, TopicMetadata> topics = new LinkedHashMap<>();
    private long nextProducerId;
    /** Immutable lists, replaced on change (readers cache by identity). */
    private volatile List<AclEntry> acls = List.of();

    private volatile List<ScramCredentialEntry> scramCredentials = List.of();

    private FileMetadataSource(Path file, String clusterId, int nodeId) {
        this.file = file;
        this.clusterId = clusterId;
        this.nodeId = nodeId;
    }

    /** Loads the file in {@code dir}, or creates it with a new cluster id, for node 0. */
    public static FileMetadataSource open(Path dir) {
        return open(dir, 0);
    }

    /** Loads the file in {@code dir}, or creates it with a new cluster id, for the node {@code nodeId}. */
    public static FileMetadataSource open(Path dir, int nodeId) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve(FILE_NAME);
            if (!Files.exists(file)) {
                FileMetadataSource source =
                        new FileMetadataSource(file, Uuid.randomUuid().toString(), nodeId);
                source.write();
                return source;
            }
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                props.load(reader);
            }
            if (!VERSION.equals(props.getProperty("version"))) {
                throw new IllegalStateException(file + ": unsupported version " + props.getProperty("version"));
            }
            FileMetadataSource source = new FileMetadataSource(file, required(props, "cluster.id"), nodeId);
            source.nextProducerId = Long.parseLong(props.getProperty("next.producer.id", "0"));
            int count = Integer.parseInt(required(props, "topic.count"));
            for (int i = 0; i < count; i++) {
                String prefix = "topic." + i + ".";
                String configPrefix = prefix + "config.";
                Map<String, String> configs = new HashMap<>();
                for (String key : props.stringPropertyNames()) {
                    if (key.startsWith(configPrefix)) {
                        configs.put(key.substring(configPrefix.length()), props.getProperty(key));
                    }
                }
                TopicMetadata topic = new TopicMetadata(
                        required(props, prefix + "name"),
                        Uuid.fromString(required(props, prefix + "id")),
                        Integer.parseInt(required(props, prefix + "partitions")),
                        configs);
                source.topics.put(topic.name(), topic);
            }
            source.acls = readAcls(props);
            source.scramCredentials = readScramCredentials(props);
            return source;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read cluster metadata in " + dir, e);
        }
    }

    private static List<AclEntry> readAcls(Properties props) {
        int count = Integer.parseInt(props.getProperty("acl.count", "0"));
        List<AclEntry> result = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String prefix = "acl." + i + ".";
            result.add(new AclEntry(
                    Byte.parseByte(required(props, prefix + "resource.type")),
                    required(props, prefix + "resource.name"),
                    Byte.parseByte(required(props, prefix + "pattern.type")),
                    required(props, prefix + "principal"),
                    required(props, prefix + "host"),
                    Byte.parseByte(required(props, prefix + "operation")),
                    Byte.parseByte(required(props, prefix + "permission"))));
        }
        return List.copyOf(result);
    }

    private static List<ScramCredentialEntry> readScramCredentials(Properties props) {
        int count = Integer.parseInt(props.getProperty("scram.count", "0"));
        java.util.Base64.Decoder base64 = java.util.Base64.getDecoder();
        List<ScramCredentialEntry> result = new java.util.ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String prefix = "scram." + i + ".";
            result.add(new ScramCredentialEntry(
                    required(props, prefix + "user"),
                    Byte.parseByte(required(props, prefix + "mechanism")),
                    base64.decode(required(props, prefix + "salt")),
                    base64.decode(required(props, prefix + "stored.key")),
                    base64.decode(required(props, prefix + "server.key")),
                    Integer.parseInt(required(props, prefix + "iterations"))));
        }
        return List.copyOf(result);
    }

    private static String required(Properties props, String key) {
        String value = props.getProperty(key);
        if (value == null) {
            throw new IllegalStateException("cluster metadata file lacks '" + key + "'");
        }
        return value;
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
        registerLocalBroker(host, port, List.of());
    }

    @Override
    public void registerLocalBroker(String host, int port, List<BrokerRegistration.Endpoint> endpoints) {
        self = new BrokerRegistration(nodeId, host, port, false, endpoints);
        notifyListeners();
    }

    @Override
    public Collection<BrokerRegistration> brokers() {
        BrokerRegistration registered = self;
        return registered == null ? List.of() : List.of(registered);
    }

    @Override
    public synchronized Optional<PartitionState> partitionState(Uuid topicId, int partition) {
        return topic(topicId)
                .filter(t -> partition >= 0 && partition < t.partitions())
                .map(t -> PartitionState.singleNode(nodeId));
    }

    @Override
    public void addChangeListener(Runnable listener) {
        listeners.add(listener);
    }

    /** A lone node has no followers, so nothing may ever ask to change an ISR. */
    @Override
    public CompletableFuture<PartitionState> alterPartition(
            Uuid topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr) {
        return CompletableFuture.failedFuture(
                new IllegalStateException("a single-node cluster has no followers; ISR change " + newIsr + " refused"));
    }

    private void notifyListeners() {
        for (Runnable listener : listeners) {
            listener.run();
        }
    }

    @Override
    public synchronized Collection<TopicMetadata> topics() {
        return List.copyOf(topics.values());
    }

    @Override
    public synchronized Optional<TopicMetadata> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    @Override
    public synchronized Optional<TopicMetadata> topic(Uuid topicId) {
        return topics.values().stream().filter(t -> t.topicId().equals(topicId)).findFirst();
    }

    @Override
    public synchronized TopicMetadata createTopic(
            String name, int partitions, int replicationFactor, Map<String, String> configs) {
        if (replicationFactor != -1 && replicationFactor != 1) {
            throw new InvalidReplicationFactorException(
                    "Replication factor: " + replicationFactor + " larger than available brokers: 1.");
        }
        if (topics.containsKey(name)) {
            throw new TopicExistsException(name);
        }
        Uuid id = Uuid.randomUuid();
        while (topic(id).isPresent()) {
            id = Uuid.randomUuid();
        }
        TopicMetadata topic = new TopicMetadata(name, id, partitions, configs);
        topics.put(name, topic);
        writeOrRollback(() -> topics.remove(name));
        notifyListeners();
        return topic;
    }

    /** A single node holds every replica: each partition's list must be this node alone. */
    @Override
    public synchronized TopicMetadata createTopic(
            String name, List<List<Integer>> assignments, Map<String, String> configs) {
        for (List<Integer> replicas : assignments) {
            if (!replicas.equals(List.of(localNodeId()))) {
                throw new InvalidReplicaAssignmentException(
                        "this single node (" + localNodeId() + ") can only hold every replica itself, not " + replicas);
            }
        }
        return createTopic(name, assignments.size(), 1, configs);
    }

    @Override
    public synchronized TopicMetadata deleteTopic(String name) {
        TopicMetadata removed = topics.remove(name);
        if (removed == null) {
            throw new UnknownTopicException("unknown topic '" + name + "'");
        }
        writeOrRollback(() -> topics.put(name, removed));
        notifyListeners();
        return removed;
    }

    @Override
    public synchronized TopicMetadata replaceConfigs(String name, Map<String, String> configs) {
        TopicMetadata old = topics.get(name);
        if (old == null) {
            throw new UnknownTopicException("unknown topic '" + name + "'");
        }
        TopicMetadata updated = old.withConfigs(configs);
        topics.put(name, updated);
        writeOrRollback(() -> topics.put(name, old));
        notifyListeners();
        return updated;
    }

    @Override
    public synchronized TopicMetadata patchConfigs(String name, Map<String, String> base, Map<String, String> configs) {
        TopicMetadata old = topics.get(name);
        if (old == null) {
            throw new UnknownTopicException("unknown topic '" + name + "'");
        }
        return replaceConfigs(name, ConfigPatch.apply(old.configs(), base, configs));
    }

    /** A single node holds every replica: each added partition's list must be this node alone. */
    @Override
    public synchronized TopicMetadata increasePartitions(String name, int newCount, List<List<Integer>> assignments) {
        TopicMetadata old = topics.get(name);
        if (old == null) {
            throw new UnknownTopicException("unknown topic '" + name + "'");
        }
        ReplicaAssignments.checkCount(assignments, newCount - old.partitions());
        ReplicaAssignments.check(assignments, 1, id -> id == localNodeId());
        return increasePartitions(name, newCount);
    }

    @Override
    public synchronized TopicMetadata increasePartitions(String name, int newCount) {
        TopicMetadata old = topics.get(name);
        if (old == null) {
            throw new UnknownTopicException("unknown topic '" + name + "'");
        }
        if (newCount <= old.partitions()) {
            throw new IllegalArgumentException("topic '" + name + "' has " + old.partitions() + " partitions; "
                    + newCount + " would not be an increase");
        }
        TopicMetadata updated = old.withPartitions(newCount);
        topics.put(name, updated);
        writeOrRollback(() -> topics.put(name, old));
        notifyListeners();
        return updated;
    }

    @Override
    public Collection<AclEntry> acls() {
        return acls;
    }

    @Override
    public synchronized void alterAcls(List<AclEntry> added, List<AclEntry> removed) {
        java.util.LinkedHashSet<AclEntry> next = new java.util.LinkedHashSet<>(acls);
        next.removeAll(removed);
        next.addAll(added);
        List<AclEntry> old = acls;
        acls = List.copyOf(next);
        writeOrRollback(() -> acls = old);
        notifyListeners();
    }

    @Override
    public Collection<ScramCredentialEntry> scramCredentials() {
        return scramCredentials;
    }

    @Override
    public synchronized void alterScramCredentials(
            List<ScramCredentialEntry> upserts, List<ScramCredentialEntry.Id> deletions) {
        Map<ScramCredentialEntry.Id, ScramCredentialEntry> next = new LinkedHashMap<>();
        for (ScramCredentialEntry credential : scramCredentials) {
            next.put(credential.id(), credential);
        }
        deletions.forEach(next::remove);
        for (ScramCredentialEntry credential : upserts) {
            next.put(credential.id(), credential);
        }
        List<ScramCredentialEntry> old = scramCredentials;
        scramCredentials = List.copyOf(next.values());
        writeOrRollback(() -> scramCredentials = old);
        notifyListeners();
    }

    private void writeOrRollback(Runnable rollback) {
        try {
            write();
        } catch (IOException e) {
            rollback.run();
            throw new UncheckedIOException("cannot write cluster metadata " + file, e);
        }
    }

    private void write() throws IOException {
        Properties props = new Properties();
        props.setProperty("version", VERSION);
        props.setProperty("cluster.id", clusterId);
        props.setProperty("next.producer.id", Long.toString(nextProducerId));
        props.setProperty("topic.count", Integer.toString(topics.size()));
        int i = 0;
        for (TopicMetadata topic : topics.values()) {
            String prefix = "topic." + i + ".";
            props.setProperty(prefix + "name", topic.name());
            props.setProperty(prefix + "id", topic.topicId().toString());
            props.setProperty(prefix + "partitions", Integer.toString(topic.partitions()));
            topic.configs().forEach((k, v) -> props.setProperty(prefix + "config." + k, v));
            i++;
        }
        List<AclEntry> aclList = acls;
        props.setProperty("acl.count", Integer.toString(aclList.size()));
        for (int a = 0; a < aclList.size(); a++) {
            AclEntry acl = aclList.get(a);
            String prefix = "acl." + a + ".";
            props.setProperty(prefix + "resource.type", Byte.toString(acl.resourceType()));
            props.setProperty(prefix + "resource.name", acl.resourceName());
            props.setProperty(prefix + "pattern.type", Byte.toString(acl.patternType()));
            props.setProperty(prefix + "principal", acl.principal());
            props.setProperty(prefix + "host", acl.host());
            props.setProperty(prefix + "operation", Byte.toString(acl.operation()));
            props.setProperty(prefix + "permission", Byte.toString(acl.permissionType()));
        }
        List<ScramCredentialEntry> scramList = scramCredentials;
        java.util.Base64.Encoder base64 = java.util.Base64.getEncoder();
        props.setProperty("scram.count", Integer.toString(scramList.size()));
        for (int c = 0; c < scramList.size(); c++) {
            ScramCredentialEntry credential = scramList.get(c);
            String prefix = "scram." + c + ".";
            props.setProperty(prefix + "user", credential.user());
            props.setProperty(prefix + "mechanism", Byte.toString(credential.mechanism()));
            props.setProperty(prefix + "salt", base64.encodeToString(credential.salt()));
            props.setProperty(prefix + "stored.key", base64.encodeToString(credential.storedKey()));
            props.setProperty(prefix + "server.key", base64.encodeToString(credential.serverKey()));
            props.setProperty(prefix + "iterations", Integer.toString(credential.iterations()));
        }
        Path temp = file.resolveSibling(FILE_NAME + ".tmp");
        try (OutputStream out = Files.newOutputStream(temp)) {
            props.store(out, "Strait cluster metadata; do not edit while the broker runs");
        }
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some platforms cannot open a directory for fsync; the rename is still atomic.
        }
    }

    @Override
    public synchronized long allocateProducerIds(int count) {
        if (count < 1) {
            throw new IllegalArgumentException("count must be >= 1, got " + count);
        }
        long before = nextProducerId;
        long first = before == 0 ? ProducerIdRange.firstOfCluster(UUID.randomUUID()) : before;
        nextProducerId = first + count;
        writeOrRollback(() -> nextProducerId = before);
        return first;
    }

    @Override
    public void close() {
        // Every change is already durable.
    }
}
