package dev.strait.broker.metadata;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.IntPredicate;

/** The checks Kafka makes on replicas placed by hand (CreateTopics with assignments), shared by every caller. */
public final class ReplicaAssignments {

    private ReplicaAssignments() {}

    /**
     * Checks one list of replicas per partition: not none, none empty, all of the first one's size, no broker twice
     * in a list, every broker registered.
     *
     * @throws InvalidReplicaAssignmentException naming the first problem
     */
    public static void check(List<List<Integer>> assignments, IntPredicate registered) {
        if (assignments.isEmpty()) {
            throw new InvalidReplicaAssignmentException("the assignment names no partition");
        }
        int size = assignments.get(0).size();
        for (int partition = 0; partition < assignments.size(); partition++) {
            List<Integer> replicas = assignments.get(partition);
            if (replicas.isEmpty()) {
                throw new InvalidReplicaAssignmentException("partition " + partition + " is assigned no replica");
            }
            if (replicas.size() != size) {
                throw new InvalidReplicaAssignmentException("partition " + partition + " has " + replicas.size()
                        + " replicas but partition 0 has " + size + "; every partition needs as many");
            }
            Set<Integer> seen = new HashSet<>();
            for (int broker : replicas) {
                if (!seen.add(broker)) {
                    throw new InvalidReplicaAssignmentException(
                            "partition " + partition + " names broker " + broker + " more than once");
                }
                if (!registered.test(broker)) {
                    throw new InvalidReplicaAssignmentException(
                            "partition " + partition + " names broker " + broker + ", which is not registered");
                }
            }
        }
    }
}
