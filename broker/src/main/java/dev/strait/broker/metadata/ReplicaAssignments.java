package dev.strait.broker.metadata;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

/**
 * The checks Kafka's controller makes on replicas placed by hand (CreateTopics and CreatePartitions with
 * assignments), with its messages, shared by every caller.
 */
public final class ReplicaAssignments {

    private ReplicaAssignments() {}

    /**
     * Checks the replica lists of a new topic's partitions: not none, none empty, all of the first one's size, no
     * broker twice in a list, every broker registered.
     *
     * @throws InvalidReplicaAssignmentException naming the first problem
     */
    public static void check(List<List<Integer>> assignments, IntPredicate registered) {
        if (assignments.isEmpty()) {
            throw new InvalidReplicaAssignmentException("the assignment names no partition");
        }
        check(assignments, assignments.get(0).size(), registered);
    }

    /**
     * Checks replica lists that must each hold {@code replicationFactor} replicas (the factor of a topic's existing
     * partitions, for CreatePartitions), none twice, every one registered.
     *
     * @throws InvalidReplicaAssignmentException naming the first problem, as Kafka names it
     */
    public static void check(List<List<Integer>> assignments, int replicationFactor, IntPredicate registered) {
        for (List<Integer> replicas : assignments) {
            if (replicas.isEmpty()) {
                throw new InvalidReplicaAssignmentException(
                        "The manual partition assignment includes an empty replica list.");
            }
            Set<Integer> seen = new HashSet<>();
            for (int broker : replicas) {
                if (!seen.add(broker)) {
                    throw new InvalidReplicaAssignmentException(
                            "The manual partition assignment includes the broker " + broker + " more than once.");
                }
            }
            for (int broker : replicas) {
                if (!registered.test(broker)) {
                    throw new InvalidReplicaAssignmentException("The manual partition assignment includes broker "
                            + broker + ", but no such broker is registered.");
                }
            }
            if (replicas.size() != replicationFactor) {
                throw new InvalidReplicaAssignmentException(
                        "The manual partition assignment includes a partition with " + replicas.size()
                                + " replica(s), but this is not consistent with previous partitions, which have "
                                + replicationFactor + " replica(s).");
            }
        }
    }

    /**
     * A CreatePartitions assignment must name one replica list per added partition.
     *
     * @throws InvalidReplicaAssignmentException with Kafka's message otherwise
     */
    public static void checkCount(List<List<Integer>> assignments, int added) {
        if (assignments.size() != added) {
            throw new InvalidReplicaAssignmentException("Attempted to add " + added
                    + " additional partition(s), but only " + assignments.size() + " assignment(s) were specified.");
        }
    }
}
