package dev.strait.broker.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * {@code partition.metadata} in a partition directory: the id of the topic the data belongs to, in Kafka's format
 * (KIP-516) so that tools reading a Kafka log directory read ours too:
 *
 * <pre>
 * version: 0
 * topic_id: &lt;base64 uuid&gt;
 * </pre>
 *
 * A topic deleted and created again under the same name has a new id; the directory's id tells the old data from
 * the new topic's after a crash or a node that was down across the two. The id is kept as its text (the log layer
 * does not depend on Kafka's classes). Written atomically and durably. Stateless.
 */
public final class PartitionMetadataFile {

    public static final String FILE_NAME = "partition.metadata";
    private static final String VERSION_LINE = "version: 0";
    private static final String TOPIC_ID_PREFIX = "topic_id: ";

    private PartitionMetadataFile() {}

    /**
     * The topic id recorded in {@code partitionDir}; empty if the directory has no such file (a directory written
     * before topic ids were recorded, or one whose creation a crash interrupted).
     *
     * @throws IOException if the file exists but cannot be read or is not in the expected format
     */
    public static Optional<String> read(Path partitionDir) throws IOException {
        Path file = partitionDir.resolve(FILE_NAME);
        List<String> lines = CheckpointFile.read(file);
        if (lines == null) {
            return Optional.empty();
        }
        if (lines.size() < 2
                || !VERSION_LINE.equals(lines.get(0).trim())
                || !lines.get(1).startsWith(TOPIC_ID_PREFIX)) {
            throw new IOException("unsupported content in " + file + ": " + lines);
        }
        String topicId = lines.get(1).substring(TOPIC_ID_PREFIX.length()).trim();
        if (topicId.isEmpty()) {
            throw new IOException("no topic id in " + file + ": " + lines);
        }
        return Optional.of(topicId);
    }

    /** Records {@code topicId} in {@code partitionDir}, fsyncing the file and the directory. */
    public static void write(Path partitionDir, String topicId) throws IOException {
        CheckpointFile.write(partitionDir.resolve(FILE_NAME), List.of(VERSION_LINE, TOPIC_ID_PREFIX + topicId));
    }

    /** Makes the creation, rename or deletion of an entry of {@code dir} durable. */
    public static void fsyncDirectory(Path dir) throws IOException {
        CheckpointFile.fsyncDirectory(dir);
    }
}
