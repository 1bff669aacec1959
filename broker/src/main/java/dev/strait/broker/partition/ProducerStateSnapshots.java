package dev.strait.broker.partition;

import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent producer state of one partition, saved in its directory as {@code <offset>.snapshot} files (20
 * digits, like segment names): the state after every batch below {@code offset}. Written when the log rolls a
 * segment and when the replica closes; a replica that opens loads the latest snapshot at or below its log end and
 * replays only the log after it, so producers last seen long ago are still known (Kafka's producer snapshots do
 * the same; the file format here is Strait's own).
 *
 * <p>Format, big-endian: magic {@code "SPS1"}, producer count, per producer {@code id, epoch, batch count} and per
 * batch {@code baseSequence, lastSequence, firstOffset, lastOffset}; then a CRC32C of all that. A file is written
 * to {@code .tmp}, fsynced and renamed, so a crash leaves the old set or the new one; a file that is torn or fails
 * its checksum anyway (disk damage) is deleted with a warning and an older one, or the whole log, is replayed
 * instead. Snapshots only save replay time, so failing to write one is a warning, not an error. Not thread-safe:
 * used under the owning {@link Partition}'s lock.
 */
final class ProducerStateSnapshots {

    private static final Logger LOGGER = LoggerFactory.getLogger(ProducerStateSnapshots.class);

    static final String SUFFIX = ".snapshot";
    private static final String TEMP_SUFFIX = ".tmp";
    private static final int MAGIC = 0x53505331; // "SPS1"
    private static final int BATCH_BYTES = 4 + 4 + 8 + 8;
    /** Older snapshots only matter after a truncation below the newer ones; a few are plenty. */
    static final int RETAINED = 3;

    /** A snapshot read back: the state of the log below {@code offset}. */
    record Loaded(long offset, ProducerStateTable table) {}

    private final Path dir;
    private final String logPrefix;

    ProducerStateSnapshots(Path dir, String logPrefix) {
        this.dir = dir;
        this.logPrefix = logPrefix;
    }

    static String fileName(long offset) {
        return String.format("%020d", offset) + SUFFIX;
    }

    /** Saves {@code table} as the state below {@code offset}, then drops all but the newest few snapshots. */
    void write(long offset, ProducerStateTable table) {
        Path file = dir.resolve(fileName(offset));
        Path temp = dir.resolve(fileName(offset) + TEMP_SUFFIX);
        try {
            ByteBuffer buffer = encode(table.snapshot());
            try (FileChannel channel = FileChannel.open(
                    temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                channel.force(true);
            }
            Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            fsyncDirectory();
            TreeSet<Long> offsets = offsets();
            while (offsets.size() > RETAINED) {
                Files.deleteIfExists(dir.resolve(fileName(offsets.pollFirst())));
            }
        } catch (IOException e) {
            LOGGER.warn(
                    "{}cannot write the producer state snapshot {} ({}); a restart replays more of the log instead",
                    logPrefix,
                    file,
                    e.toString());
        }
    }

    /**
     * The newest readable snapshot at or below {@code maxOffset}; unreadable ones are deleted on the way (with a
     * warning), so the next open does not trip over them again.
     */
    Optional<Loaded> loadLatestAtOrBelow(long maxOffset) {
        TreeSet<Long> offsets;
        try {
            offsets = offsets();
        } catch (IOException e) {
            LOGGER.warn("{}cannot list producer state snapshots ({}); replaying the log", logPrefix, e.toString());
            return Optional.empty();
        }
        for (Long offset : offsets.headSet(maxOffset, true).descendingSet()) {
            Path file = dir.resolve(fileName(offset));
            try {
                return Optional.of(new Loaded(offset, ProducerStateTable.restore(decode(Files.readAllBytes(file)))));
            } catch (IOException | CorruptSnapshotException e) {
                LOGGER.warn(
                        "{}ignoring the producer state snapshot {}: {}; using an older one or the log instead",
                        logPrefix,
                        file,
                        e.getMessage());
                deleteQuietly(file);
            }
        }
        return Optional.empty();
    }

    /** After a truncation to {@code offset}: snapshots above it describe batches that are gone. */
    void deleteAbove(long offset) {
        try {
            for (Long above : offsets().tailSet(offset, false)) {
                Files.deleteIfExists(dir.resolve(fileName(above)));
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(
                    logPrefix + "cannot delete producer state snapshots above " + offset + " in " + dir
                            + "; check the log directory's disk and permissions",
                    e);
        }
    }

    /** After the log was emptied and restarted elsewhere: no snapshot describes it. */
    void deleteAll() {
        deleteAbove(-1);
    }

    private TreeSet<Long> offsets() throws IOException {
        TreeSet<Long> offsets = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                String digits = name.substring(0, name.length() - SUFFIX.length());
                if (digits.length() == 20 && digits.chars().allMatch(Character::isDigit)) {
                    offsets.add(Long.parseLong(digits));
                }
            }
        }
        return offsets;
    }

    private void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOGGER.warn("{}cannot delete {}: {}", logPrefix, file, e.toString());
        }
    }

    private void fsyncDirectory() throws IOException {
        try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    static ByteBuffer encode(List<ProducerStateTable.ProducerSnapshot> producers) {
        int size = 4 + 4 + 4;
        for (ProducerStateTable.ProducerSnapshot producer : producers) {
            size += 8 + 2 + 4 + producer.batches().size() * BATCH_BYTES;
        }
        ByteBuffer buffer = ByteBuffer.allocate(size);
        buffer.putInt(MAGIC).putInt(producers.size());
        for (ProducerStateTable.ProducerSnapshot producer : producers) {
            buffer.putLong(producer.producerId())
                    .putShort(producer.epoch())
                    .putInt(producer.batches().size());
            for (ProducerStateTable.CachedBatch batch : producer.batches()) {
                buffer.putInt(batch.baseSequence())
                        .putInt(batch.lastSequence())
                        .putLong(batch.firstOffset())
                        .putLong(batch.lastOffset());
            }
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), 0, buffer.position());
        buffer.putInt((int) crc.getValue());
        return buffer.flip();
    }

    static List<ProducerStateTable.ProducerSnapshot> decode(byte[] bytes) {
        if (bytes.length < 12) {
            throw new CorruptSnapshotException("only " + bytes.length + " bytes");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length - 4);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (buffer.getInt(bytes.length - 4) != (int) crc.getValue()) {
            throw new CorruptSnapshotException("checksum mismatch (torn or damaged file)");
        }
        buffer.limit(bytes.length - 4);
        try {
            if (buffer.getInt() != MAGIC) {
                throw new CorruptSnapshotException("not a producer state snapshot (bad magic)");
            }
            int count = buffer.getInt();
            List<ProducerStateTable.ProducerSnapshot> producers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                long producerId = buffer.getLong();
                short epoch = buffer.getShort();
                int batchCount = buffer.getInt();
                if (batchCount < 0 || batchCount > buffer.remaining() / BATCH_BYTES) {
                    throw new CorruptSnapshotException("producer " + producerId + " has " + batchCount + " batches");
                }
                List<ProducerStateTable.CachedBatch> batches = new ArrayList<>(batchCount);
                for (int b = 0; b < batchCount; b++) {
                    batches.add(new ProducerStateTable.CachedBatch(
                            buffer.getInt(), buffer.getInt(), buffer.getLong(), buffer.getLong()));
                }
                producers.add(new ProducerStateTable.ProducerSnapshot(producerId, epoch, batches));
            }
            if (buffer.hasRemaining()) {
                throw new CorruptSnapshotException(buffer.remaining() + " bytes after the last producer");
            }
            return producers;
        } catch (BufferUnderflowException e) {
            throw new CorruptSnapshotException("ends inside a producer entry");
        }
    }

    /** A snapshot file that cannot be trusted. */
    static final class CorruptSnapshotException extends RuntimeException {
        CorruptSnapshotException(String message) {
            super(message);
        }
    }
}
