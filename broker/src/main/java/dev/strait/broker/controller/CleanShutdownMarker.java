package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The node's clean-shutdown marker (Kafka's {@code .kafka_cleanshutdown}): a file holding the node epoch the node
 * had when it shut down cleanly, written only after its partition logs were flushed and closed. It is taken (read
 * and removed) at start, so a crash or power loss in this life leaves none behind. The registration names that
 * epoch; the controller takes a registration without it, or with an epoch that is not the node's last
 * registration, as an unclean shutdown (KIP-966): the node's logs may have lost acknowledged records.
 */
final class CleanShutdownMarker {

    static final String FILE_NAME = ".strait-clean-shutdown";

    private final Path file;

    CleanShutdownMarker(Path dir) {
        this.file = dir.resolve(FILE_NAME);
    }

    /**
     * Reads and removes the marker, durably, before this life can crash.
     *
     * @return the node epoch it holds, or {@link RegisterBroker#UNCLEAN} if there is none or it is unreadable
     */
    long take() {
        try {
            if (!Files.exists(file)) {
                return RegisterBroker.UNCLEAN;
            }
            long epoch;
            try {
                epoch = Long.parseLong(
                        Files.readString(file, StandardCharsets.UTF_8).trim());
            } catch (NumberFormatException e) {
                epoch = RegisterBroker.UNCLEAN;
            }
            Files.delete(file);
            fsyncDirectory();
            return epoch < 0 ? RegisterBroker.UNCLEAN : epoch;
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot read or remove the clean-shutdown marker " + file + "; check the directory's permissions",
                    e);
        }
    }

    /** Writes the marker for {@code nodeEpoch}, durably (write, fsync, rename, fsync the directory). */
    void write(long nodeEpoch) throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        try (FileChannel channel = FileChannel.open(
                tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            channel.write(java.nio.ByteBuffer.wrap(Long.toString(nodeEpoch).getBytes(StandardCharsets.UTF_8)));
            channel.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        fsyncDirectory();
    }

    private void fsyncDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(file.getParent(), StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Some file systems cannot open a directory for fsync; the rename is then as durable as they make it.
        }
    }
}
