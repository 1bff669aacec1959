package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/** The admin calls the syncs and the failover commands share, each one batched request per broker. */
public final class Clusters {
    private Clusters() {}

    /** Consumer groups (classic or consumer protocol, and simple groups that only commit) matching {@code filter}. */
    public static List<String> consumerGroups(Admin admin, Predicate<String> filter, long timeoutMs) {
        Collection<GroupListing> all = get(admin.listGroups().all(), timeoutMs, "list consumer groups");
        List<String> out = new ArrayList<>();
        for (GroupListing g : all) {
            Optional<GroupType> type = g.type();
            boolean consumer = type.map(t -> t == GroupType.CLASSIC || t == GroupType.CONSUMER)
                            .orElse(true)
                    && (g.protocol() == null
                            || g.protocol().isEmpty()
                            || g.protocol().equals("consumer"));
            if (consumer && filter.test(g.groupId())) {
                out.add(g.groupId());
            }
        }
        out.sort(String::compareTo);
        return out;
    }

    /** Committed offsets of many groups in one go; a group without offsets maps to an empty map. */
    public static Map<String, Map<TopicPartition, OffsetAndMetadata>> committed(
            Admin admin, Collection<String> groups, long timeoutMs) {
        Map<String, Map<TopicPartition, OffsetAndMetadata>> out = new HashMap<>();
        if (groups.isEmpty()) {
            return out;
        }
        Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
        for (String g : groups) {
            specs.put(g, new ListConsumerGroupOffsetsSpec());
        }
        var result = admin.listConsumerGroupOffsets(specs);
        for (String g : groups) {
            Map<TopicPartition, OffsetAndMetadata> offsets;
            try {
                offsets = result.partitionsToOffsetAndMetadata(g).get(timeoutMs, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GroupIdNotFoundException) {
                    offsets = Map.of();
                } else {
                    throw new SyncException(
                            "could not read the committed offsets of group " + g + ": " + e.getCause(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SyncException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new SyncException("timed out reading the committed offsets of group " + g, e);
            }
            Map<TopicPartition, OffsetAndMetadata> clean = new HashMap<>();
            offsets.forEach((tp, om) -> {
                if (om != null) {
                    clean.put(tp, om);
                }
            });
            out.put(g, clean);
        }
        return out;
    }

    /** Number of members of each group; 0 for a group that does not exist. */
    public static Map<String, Integer> members(Admin admin, Collection<String> groups, long timeoutMs) {
        Map<String, Integer> out = new HashMap<>();
        if (groups.isEmpty()) {
            return out;
        }
        Map<String, KafkaFuture<ConsumerGroupDescription>> futures =
                admin.describeConsumerGroups(groups).describedGroups();
        for (String g : groups) {
            try {
                out.put(
                        g,
                        Objects.requireNonNull(futures.get(g), "describeConsumerGroups answers for every group asked")
                                .get(timeoutMs, TimeUnit.MILLISECONDS)
                                .members()
                                .size());
            } catch (ExecutionException e) {
                if (e.getCause() instanceof GroupIdNotFoundException) {
                    out.put(g, 0);
                } else {
                    throw new SyncException("could not describe group " + g + ": " + e.getCause(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SyncException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new SyncException("timed out describing group " + g, e);
            }
        }
        return out;
    }

    /** Partition counts of the topics that exist among {@code topics}. */
    public static Map<String, Integer> partitionCounts(Admin admin, Collection<String> topics, long timeoutMs) {
        Map<String, Integer> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        Map<String, KafkaFuture<TopicDescription>> futures =
                admin.describeTopics(new HashSet<>(topics)).topicNameValues();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : futures.entrySet()) {
            try {
                out.put(
                        e.getKey(),
                        e.getValue()
                                .get(timeoutMs, TimeUnit.MILLISECONDS)
                                .partitions()
                                .size());
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new SyncException(
                            "could not describe topic " + e.getKey() + ": " + ex.getCause(), ex.getCause());
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new SyncException("interrupted", ex);
            } catch (java.util.concurrent.TimeoutException ex) {
                throw new SyncException("timed out describing topic " + e.getKey(), ex);
            }
        }
        return out;
    }

    /** Every partition of the topics that exist among {@code topics}. */
    public static Set<TopicPartition> partitions(Admin admin, Collection<String> topics, long timeoutMs) {
        Set<TopicPartition> out = new HashSet<>();
        partitionCounts(admin, topics, timeoutMs).forEach((topic, n) -> {
            for (int p = 0; p < n; p++) {
                out.add(new TopicPartition(topic, p));
            }
        });
        return out;
    }

    public static Map<TopicPartition, Long> endOffsets(Admin admin, Collection<TopicPartition> tps, long timeoutMs) {
        return offsets(admin, tps, OffsetSpec.latest(), timeoutMs);
    }

    public static Map<TopicPartition, Long> startOffsets(Admin admin, Collection<TopicPartition> tps, long timeoutMs) {
        return offsets(admin, tps, OffsetSpec.earliest(), timeoutMs);
    }

    private static Map<TopicPartition, Long> offsets(
            Admin admin, Collection<TopicPartition> tps, OffsetSpec spec, long timeoutMs) {
        Map<TopicPartition, Long> out = new HashMap<>();
        if (tps.isEmpty()) {
            return out;
        }
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        tps.forEach(tp -> specs.put(tp, spec));
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> r =
                get(admin.listOffsets(specs).all(), timeoutMs, "list offsets");
        r.forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** Waits for an admin call; its failure becomes a {@link SyncException} that says what was being done. */
    public static <T> T get(KafkaFuture<T> f, long timeoutMs, String what) {
        try {
            return f.get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new SyncException(
                    "could not " + what + ": " + (e.getCause() == null ? e : e.getCause()).getMessage(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SyncException("interrupted while trying to " + what, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new SyncException("timed out after " + timeoutMs + " ms trying to " + what, e);
        }
    }
}
