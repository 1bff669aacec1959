package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Small text files replaced atomically: write {@code <name>.tmp}, fsync it, rename over the target, fsync the
 * directory. A crash leaves either the old or the new content, never a mix. Stateless.
 */
final class CheckpointFile {

    private CheckpointFile() {}

    static void write(Path file, List<String> lines) throws IOException {
        Path temp = file.resolveSibling(file.getFileName() + LogFiles.TEMP_SUFFIX);
        ByteBuffer content = ByteBuffer.wrap((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
        try (FileChannel channel = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            FileIo.writeFully(channel, content, 0);
            channel.force(true);
        }
        try {
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        fsyncDirectory(Objects.requireNonNull(file.getParent(), "a checkpoint file lives in a directory"));
    }

    /** The file's lines, or {@code null} if it does not exist. */
    static @Nullable List<String> read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return null;
        }
        return Files.readAllLines(file, StandardCharsets.UTF_8);
    }

    /** Makes a rename or a file creation/deletion durable. */
    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        } catch (IOException e) {
            // Some platforms (Windows) cannot open a directory; the rename itself is still atomic there.
            if (Files.isDirectory(dir) && System.getProperty("os.name", "").startsWith("Windows")) {
                return;
            }
            throw e;
        }
    }
}
