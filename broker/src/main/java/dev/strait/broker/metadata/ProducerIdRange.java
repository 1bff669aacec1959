package dev.strait.broker.metadata;

import java.util.UUID;

/**
 * Where a cluster's producer ids start. Kafka hands them out from 0 upward; so would two companion clusters. A
 * mirror topic copies the source's producer state with its batches (so a producer carries on after a promote), and
 * a producer that then starts on the promoted cluster must not be given an id the copy brought along: it would
 * inherit that producer's sequences and be refused. So each cluster draws its first id once, at random, from
 * 2^21 ranges of 2^40 ids each (about a trillion ids per cluster) that lie far above the ids Apache Kafka
 * clusters hand out, and allocates upward from there as Kafka does.
 */
public final class ProducerIdRange {
    static final int RANGE_BITS = 40;
    static final int RANGES = 1 << 21;

    private ProducerIdRange() {}

    /** The first producer id of a new cluster, from a random {@code seed} (a fresh UUID). */
    public static long firstOfCluster(UUID seed) {
        long range = 1L + Math.floorMod(seed.getLeastSignificantBits() ^ seed.getMostSignificantBits(), RANGES);
        return range << RANGE_BITS;
    }
}
