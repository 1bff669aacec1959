package dev.strait.broker.txn;

import java.util.Comparator;

/** A partition taking part in a transaction: topic name and partition index (the coordinator's own type). */
public record TxnPartition(String topic, int partition) implements Comparable<TxnPartition> {

    private static final Comparator<TxnPartition> ORDER =
            Comparator.comparing(TxnPartition::topic).thenComparingInt(TxnPartition::partition);

    public TxnPartition {
        if (topic.isEmpty() || partition < 0) {
            throw new IllegalArgumentException("invalid partition " + topic + "-" + partition);
        }
    }

    @Override
    public int compareTo(TxnPartition other) {
        return ORDER.compare(this, other);
    }

    @Override
    public String toString() {
        return topic + "-" + partition;
    }
}
