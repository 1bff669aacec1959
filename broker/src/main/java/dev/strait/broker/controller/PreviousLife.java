package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operating system boot a node's registration was made in, kept beside the clean-shutdown marker. Only a
 * restart of the machine (power loss, kernel crash) loses writes a process made: a process killed on a machine
 * that kept running leaves every write it made in the page cache, and the kernel writes them out. So a node whose
 * previous life ended without a clean shutdown, but in the boot that is still running, lost nothing it
 * acknowledged, and may tell the controller its previous epoch as a clean shutdown would (KIP-966 cannot see the
 * difference and takes every crash for a power loss, which leaves partitions whose every replica was killed
 * leaderless).
 *
 * <p>The boot is named by {@code /proc/sys/kernel/random/boot_id} (Linux gives it a new random value at every
 * boot); where it cannot be read every crash counts as unclean. Tests that simulate a power loss without a reboot
 * point {@code strait.boot.id.file} at a file of their own and change it.
 */
final class PreviousLife {

    static final String FILE_NAME = ".strait-previous-life";
    static final Path LINUX_BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private static final Logger LOGGER = LoggerFactory.getLogger(PreviousLife.class);

    private final Path file;
    private final Path bootIdFile;

    PreviousLife(Path dir, Path bootIdFile) {
        this.file = dir.resolve(FILE_NAME);
        this.bootIdFile = bootIdFile;
    }

    /** The running boot's id, if the system names it. */
    Optional<String> currentBoot() {
        try {
            String id = Files.readString(bootIdFile, StandardCharsets.UTF_8).trim();
            return id.isEmpty() ? Optional.empty() : Optional.of(id);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /**
     * The node epoch the previous life registered with, if it registered in the boot still running;
     * {@link RegisterBroker#UNCLEAN} otherwise (another boot, no record, an unreadable one or no boot id).
     */
    long epochIfSameBoot() {
        Optional<String> boot = currentBoot();
        if (boot.isEmpty() || !Files.exists(file)) {
            return RegisterBroker.UNCLEAN;
        }
        try {
            String[] fields =
                    Files.readString(file, StandardCharsets.UTF_8).trim().split(" ");
            if (fields.length != 2 || !fields[0].equals(boot.get())) {
                return RegisterBroker.UNCLEAN;
            }
            long epoch = Long.parseLong(fields[1]);
            return epoch < 0 ? RegisterBroker.UNCLEAN : epoch;
        } catch (IOException | NumberFormatException e) {
            return RegisterBroker.UNCLEAN;
        }
    }

    /**
     * Records that this life registered with {@code nodeEpoch} in the running boot. Not fsynced: a reboot that
     * loses it makes the next start unclean, which is what a reboot means anyway.
     */
    void record(long nodeEpoch) {
        Optional<String> boot = currentBoot();
        try {
            if (boot.isEmpty()) {
                Files.deleteIfExists(file);
                return;
            }
            Files.createDirectories(file.getParent());
            Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
            try (FileChannel channel = FileChannel.open(
                    tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                channel.write(ByteBuffer.wrap((boot.get() + " " + nodeEpoch).getBytes(StandardCharsets.UTF_8)));
            }
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            LOGGER.warn(
                    "could not record the boot of registration {} in {}; a crash will count as unclean: {}",
                    nodeEpoch,
                    file,
                    e.toString());
        }
    }
}
