package dev.strait.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The server-side assignors of consumer groups (KIP-848), with Kafka's names: {@code uniform} (the default) and
 * {@code range}. Both are pure and deterministic: the same members, subscriptions, partition counts and previous
 * target give the same assignment (members are taken in member-id order, partitions in topic-then-number order).
 *
 * <p>{@code uniform} spreads the partitions so that member counts differ by at most one among members subscribed to
 * the same topics, and is sticky: a member keeps the partitions of its previous target that it may keep within its
 * quota, so a rebalance moves as few partitions as it can. {@code range} gives each member a contiguous range of
 * each topic it subscribes to (the first members of a topic one partition more when the count does not divide).
 */
final class ConsumerAssignors {

    static final String UNIFORM = "uniform";
    static final String RANGE = "range";

    /** A member as an assignor sees it: what it subscribes to (resolved topic names) and its previous target. */
    record AssignmentMember(Set<String> topics, Map<String, SortedSet<Integer>> previous) {}

    private ConsumerAssignors() {}

    static boolean isKnown(String name) {
        return UNIFORM.equals(name) || RANGE.equals(name);
    }

    /**
     * @param members        by member id
     * @param partitionCount partitions of each topic that exists (topics absent here are not assigned)
     * @return the target assignment of every member (empty maps for members that get nothing)
     */
    static SortedMap<String, SortedMap<String, SortedSet<Integer>>> assign(
            String assignor, SortedMap<String, AssignmentMember> members, Map<String, Integer> partitionCount) {
        SortedMap<String, SortedMap<String, SortedSet<Integer>>> result = new TreeMap<>();
        members.keySet().forEach(id -> result.put(id, new TreeMap<>()));
        if (RANGE.equals(assignor)) {
            range(members, partitionCount, result);
        } else {
            uniform(members, partitionCount, result);
        }
        return result;
    }

    private static void range(
            SortedMap<String, AssignmentMember> members,
            Map<String, Integer> partitionCount,
            SortedMap<String, SortedMap<String, SortedSet<Integer>>> result) {
        for (Map.Entry<String, Integer> topicCount : new TreeMap<>(partitionCount).entrySet()) {
            String topic = topicCount.getKey();
            List<String> subscribers = new ArrayList<>();
            members.forEach((id, m) -> {
                if (m.topics().contains(topic)) {
                    subscribers.add(id);
                }
            });
            if (subscribers.isEmpty()) {
                continue;
            }
            int count = topicCount.getValue();
            int base = count / subscribers.size();
            int extra = count % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int size = base + (i < extra ? 1 : 0);
                for (int p = next; p < next + size; p++) {
                    add(result, subscribers.get(i), topic, p);
                }
                next += size;
            }
        }
    }

    /**
     * Groups the members by their subscription (members with equal subscriptions share quotas), and balances each
     * group's partitions; partitions wanted by several subscription groups go to whichever has fewest per member.
     */
    private static void uniform(
            SortedMap<String, AssignmentMember> members,
            Map<String, Integer> partitionCount,
            SortedMap<String, SortedMap<String, SortedSet<Integer>>> result) {
        Map<String, Integer> counts = new HashMap<>();
        members.keySet().forEach(id -> counts.put(id, 0));
        Map<TopicPartition, String> taken = new HashMap<>();
        // Pass 1, stickiness: each member keeps what it had and may still have, up to its share rounded down; then,
        // in member-id order, one more for as many members as the share's remainder allows.
        Map<Set<String>, Integer> extrasLeft = new HashMap<>();
        for (Map.Entry<String, AssignmentMember> e : members.entrySet()) {
            Share share = share(e.getValue(), members, partitionCount);
            extrasLeft.putIfAbsent(e.getValue().topics(), share.remainder());
            keep(e.getKey(), e.getValue(), share.floor(), partitionCount, taken, counts, result);
        }
        for (Map.Entry<String, AssignmentMember> e : members.entrySet()) {
            int left = extrasLeft.getOrDefault(e.getValue().topics(), 0);
            if (left > 0) {
                int before = counts.getOrDefault(e.getKey(), 0);
                keep(e.getKey(), e.getValue(), before + 1, partitionCount, taken, counts, result);
                if (counts.getOrDefault(e.getKey(), 0) > before) {
                    extrasLeft.put(e.getValue().topics(), left - 1);
                }
            }
        }
        // Pass 2: every partition left goes to the subscribed member with the fewest (ties: lowest member id).
        for (Map.Entry<String, Integer> topicCount : new TreeMap<>(partitionCount).entrySet()) {
            String topic = topicCount.getKey();
            for (int p = 0; p < topicCount.getValue(); p++) {
                if (taken.containsKey(new TopicPartition(topic, p))) {
                    continue;
                }
                String best = null;
                for (Map.Entry<String, AssignmentMember> e : members.entrySet()) {
                    if (e.getValue().topics().contains(topic)
                            && (best == null || counts.getOrDefault(e.getKey(), 0) < counts.getOrDefault(best, 0))) {
                        best = e.getKey();
                    }
                }
                if (best != null) {
                    counts.merge(best, 1, Integer::sum);
                    add(result, best, topic, p);
                }
            }
        }
    }

    private record Share(int floor, int remainder) {}

    /** The partitions of a member's topics divided by the members subscribed to any of them. */
    private static Share share(
            AssignmentMember member, SortedMap<String, AssignmentMember> members, Map<String, Integer> partitionCount) {
        int partitions = 0;
        for (String topic : member.topics()) {
            partitions += partitionCount.getOrDefault(topic, 0);
        }
        int sharing = 0;
        for (AssignmentMember other : members.values()) {
            if (other.topics().stream().anyMatch(member.topics()::contains)) {
                sharing++;
            }
        }
        return sharing == 0 ? new Share(0, 0) : new Share(partitions / sharing, partitions % sharing);
    }

    /** Gives the member the partitions of its previous target that are still free, until it has {@code upTo}. */
    private static void keep(
            String memberId,
            AssignmentMember member,
            int upTo,
            Map<String, Integer> partitionCount,
            Map<TopicPartition, String> taken,
            Map<String, Integer> counts,
            SortedMap<String, SortedMap<String, SortedSet<Integer>>> result) {
        for (Map.Entry<String, SortedSet<Integer>> owned : member.previous().entrySet()) {
            String topic = owned.getKey();
            Integer count = partitionCount.get(topic);
            if (count == null || !member.topics().contains(topic)) {
                continue;
            }
            for (int p : owned.getValue()) {
                TopicPartition tp = new TopicPartition(topic, p);
                if (p < count && counts.getOrDefault(memberId, 0) < upTo && !taken.containsKey(tp)) {
                    taken.put(tp, memberId);
                    counts.merge(memberId, 1, Integer::sum);
                    add(result, memberId, topic, p);
                }
            }
        }
    }

    private static void add(
            SortedMap<String, SortedMap<String, SortedSet<Integer>>> result,
            String memberId,
            String topic,
            int partition) {
        result.computeIfAbsent(memberId, m -> new TreeMap<>())
                .computeIfAbsent(topic, t -> new TreeSet<>())
                .add(partition);
    }

    private record TopicPartition(String topic, int partition) {}
}
