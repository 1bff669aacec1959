package dev.strait.broker.raft;

/**
 * A position in the Raft log named by the epoch of the entry before it: {@code offset} is an end offset
 * (exclusive), {@code epoch} the epoch of the entry at {@code offset - 1} (0 for the empty prefix). Orders by
 * epoch, then offset, which is exactly Raft's "at least as up to date" comparison.
 */
public record OffsetAndEpoch(long offset, int epoch) implements Comparable<OffsetAndEpoch> {

    public static final OffsetAndEpoch START = new OffsetAndEpoch(0, 0);

    public OffsetAndEpoch {
        if (offset < 0 || epoch < 0) {
            throw new IllegalArgumentException("negative offset or epoch: " + offset + "/" + epoch);
        }
    }

    @Override
    public int compareTo(OffsetAndEpoch other) {
        int byEpoch = Integer.compare(epoch, other.epoch);
        return byEpoch != 0 ? byEpoch : Long.compare(offset, other.offset);
    }
}
