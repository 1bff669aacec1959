package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a replica cut from its log for a failback, kept beside the log, and the id of the last cut it applied.
 *
 * <p>The failback saves the divergent records into a topic of their own before it asks for the cut; this file is
 * the second copy, of exactly what each replica removed, so that nothing is deleted even if a record arrived after
 * the failback read the log. The file holds the removed batches as they were in the log (the format of a segment
 * file); it is never read by the broker and never deleted by it (deleting the topic deletes it).
 */
public final class DivergedSuffix {
    public static final String APPLIED_FILE = "mirror-truncation.applied";
    private static final String VERSION_LINE = "version: 0";

    /** Where the batches a cut removed were saved, and which offsets they covered. */
    public record Cut(long fromOffset, long toOffset, Path savedTo) {}

    private DivergedSuffix() {}

    /** The id of the last cut this replica applied, if any. */
    public static Optional<String> appliedId(Path partitionDir) throws IOException {
        List<String> lines = CheckpointFile.read(partitionDir.resolve(APPLIED_FILE));
        if (lines == null
                || lines.size() < 2
                || !VERSION_LINE.equals(lines.get(0).trim())) {
            return Optional.empty();
        }
        return Optional.of(lines.get(1).trim());
    }

    /** Records that the cut {@code id} is applied here; durable when this returns. */
    public static void recordApplied(Path partitionDir, String id) throws IOException {
        CheckpointFile.write(partitionDir.resolve(APPLIED_FILE), List.of(VERSION_LINE, id));
    }

    /** The file the batches of offsets [from, to) removed by cut {@code id} go to. */
    public static Path fileFor(Path partitionDir, String id, long from, long to) {
        return partitionDir.resolve("diverged-" + from + "-" + to + "." + id + ".batches");
    }

    /** Writes the batches, fsyncs them, and moves them into place; the file exists only once it is whole. */
    public static void save(Path file, List<ByteBuffer> batches) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + ".tmp-write");
        try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            for (ByteBuffer batch : batches) {
                ByteBuffer b = batch.duplicate();
                while (b.hasRemaining()) {
                    channel.write(b);
                }
            }
            channel.force(true);
        }
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        CheckpointFile.fsyncDirectory(Objects.requireNonNull(file.getParent(), "the file lives in a directory"));
    }
}
