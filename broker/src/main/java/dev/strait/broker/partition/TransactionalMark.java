package dev.strait.broker.partition;

import dev.strait.broker.log.LogStorageException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The empty file {@value #NAME} in a partition's directory: the log holds (or held) transactional batches, so its
 * open and aborted transactions are read from it again at the next start. Without it a restarted node would serve
 * read_committed consumers aborted records and records of transactions still open. Logs without transactions skip
 * that read, which costs a pass over every batch header.
 */
final class TransactionalMark {

    static final String NAME = "transactional.mark";

    private TransactionalMark() {}

    static boolean exists(Path dir) {
        return Files.exists(dir.resolve(NAME));
    }

    /** Creates the mark durably: the file and its directory entry are synced before the first transactional batch. */
    static void write(Path dir) {
        Path mark = dir.resolve(NAME);
        if (Files.exists(mark)) {
            return;
        }
        try {
            try (FileChannel file = FileChannel.open(
                    mark, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.SYNC)) {
                file.force(true);
            }
            try (FileChannel directory = FileChannel.open(dir, StandardOpenOption.READ)) {
                directory.force(true);
            }
        } catch (IOException e) {
            throw new LogStorageException("cannot mark " + dir + " as holding transactions", e);
        }
    }
}
