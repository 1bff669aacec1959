package dev.strait.broker.partition;

import dev.strait.broker.metadata.MetadataSource;

/**
 * Hands out producer ids for InitProducerId: increasing, never reused, also across restarts. Ids are reserved in
 * durable blocks from the {@link MetadataSource} (as Kafka brokers do with AllocateProducerIds), so a restart skips
 * at most the rest of one block. Thread-safe.
 */
public final class ProducerIdManager {

    static final int BLOCK_SIZE = 1000;

    private final MetadataSource metadata;
    private long next;
    private long blockEnd;

    public ProducerIdManager(MetadataSource metadata) {
        this.metadata = metadata;
    }

    public synchronized long nextProducerId() {
        if (next >= blockEnd) {
            next = metadata.allocateProducerIds(BLOCK_SIZE);
            blockEnd = next + BLOCK_SIZE;
        }
        return next++;
    }
}
