package dev.strait.broker.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * {@link RaftStorage} in a directory of two files.
 *
 * <ul>
 *   <li>{@value #LOG_FILE}: the log, one record per entry: {@code int bodyLength, int crc32c(body), body} where
 *       body is {@code byte kind, int epoch, long offset, payload}. Appends go to the OS cache;
 *       {@link #flush()} fsyncs. On open the file is read front to back and cut at the first record that is
 *       short, fails its CRC, or does not continue the offsets and epochs: that is the torn tail of a write a
 *       crash interrupted, never acknowledged because acknowledgement waits for the fsync.
 *   <li>{@value #STATE_FILE}: the {@link ElectionState}, {@code int version, int epoch, int votedFor,
 *       int leaderId, int crc32c}, replaced atomically (temp file, fsync, rename, fsync of the directory), so it
 *       is either the old or the new state and never torn. A corrupt state file is an error, not something to
 *       recover from: forgetting a vote could elect two leaders.
 * </ul>
 *
 * The entries are also kept in memory (the metadata log is small and we have no snapshots yet). IO errors are
 * rethrown as {@link UncheckedIOException}; the broker treats them as fatal for the node. Not thread-safe.
 */
public final class FileRaftStorage implements RaftStorage, AutoCloseable {

    public static final String LOG_FILE = "raft.log";
    public static final String STATE_FILE = "quorum-state";
    private static final int STATE_VERSION = 1;
    private static final int HEADER_BYTES = 8;
    private static final int FIXED_BODY_BYTES = 1 + 4 + 8;
    private static final int MAX_ENTRY_BYTES = 8 * 1024 * 1024;

    private final Path directory;
    private final FileChannel log;
    private final List<LogEntry> entries = new ArrayList<>();
    private final List<Long> positions = new ArrayList<>();
    private final long recoveredTruncatedBytes;
    private long fileEnd;
    private ElectionState electionState;

    private FileRaftStorage(Path directory) throws IOException {
        this.directory = directory;
        this.electionState = readElectionState(directory.resolve(STATE_FILE));
        this.log = FileChannel.open(directory.resolve(LOG_FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        long size = log.size();
        this.fileEnd = recoverLog(size);
        this.recoveredTruncatedBytes = size - fileEnd;
        if (recoveredTruncatedBytes > 0) {
            log.truncate(fileEnd);
            log.force(true);
        }
    }

    /** Opens (creating if needed) the storage in {@code directory}, truncating a torn log tail. */
    public static FileRaftStorage open(Path directory) throws IOException {
        Files.createDirectories(directory);
        return new FileRaftStorage(directory);
    }

    /** Bytes cut off the end of the log when it was opened. */
    public long recoveredTruncatedBytes() {
        return recoveredTruncatedBytes;
    }

    @Override
    public ElectionState electionState() {
        return electionState;
    }

    @Override
    public void writeElectionState(ElectionState state) {
        ByteBuffer buffer = ByteBuffer.allocate(20);
        buffer.putInt(STATE_VERSION).putInt(state.epoch()).putInt(state.votedFor()).putInt(state.leaderId());
        buffer.putInt(crc(buffer.array(), 0, 16));
        buffer.flip();
        Path target = directory.resolve(STATE_FILE);
        Path temp = directory.resolve(STATE_FILE + ".tmp");
        try {
            try (FileChannel out = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(out, buffer, 0);
                out.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            // the rename itself lives in the directory; without this a crash can bring back the old state
            try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
                dir.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
        electionState = state;
    }

    @Override
    public long endOffset() {
        return entries.size();
    }

    @Override
    public LogEntry entry(long offset) {
        return entries.get(Math.toIntExact(offset));
    }

    @Override
    public void append(LogEntry entry) {
        if (entry.offset() != entries.size()) {
            throw new IllegalStateException("append of " + entry + " at end offset " + entries.size());
        }
        byte[] payload = entry.payload();
        ByteBuffer record = ByteBuffer.allocate(HEADER_BYTES + FIXED_BODY_BYTES + payload.length);
        record.putInt(FIXED_BODY_BYTES + payload.length).putInt(0);
        record.put(entry.kind().code()).putInt(entry.epoch()).putLong(entry.offset()).put(payload);
        record.putInt(4, crc(record.array(), HEADER_BYTES, FIXED_BODY_BYTES + payload.length));
        record.flip();
        try {
            writeFully(log, record, fileEnd);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + directory.resolve(LOG_FILE), e);
        }
        positions.add(fileEnd);
        entries.add(entry);
        fileEnd += record.limit();
    }

    @Override
    public void truncateTo(long endOffset) {
        if (endOffset >= entries.size()) {
            return;
        }
        int end = Math.toIntExact(endOffset);
        long position = positions.get(end);
        try {
            log.truncate(position);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot truncate " + directory.resolve(LOG_FILE), e);
        }
        entries.subList(end, entries.size()).clear();
        positions.subList(end, positions.size()).clear();
        fileEnd = position;
    }

    @Override
    public void flush() {
        try {
            log.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fsync " + directory.resolve(LOG_FILE), e);
        }
    }

    @Override
    public void close() throws IOException {
        log.close();
    }

    /** Reads valid records into memory and returns the file position where the valid log ends. */
    private long recoverLog(long size) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        long position = 0;
        int lastEpoch = 0;
        while (position + HEADER_BYTES <= size) {
            header.clear();
            readFully(header, position);
            int bodyLength = header.getInt(0);
            int expectedCrc = header.getInt(4);
            if (bodyLength < FIXED_BODY_BYTES || bodyLength > MAX_ENTRY_BYTES
                    || position + HEADER_BYTES + bodyLength > size) {
                break;
            }
            ByteBuffer body = ByteBuffer.allocate(bodyLength);
            readFully(body, position + HEADER_BYTES);
            if (crc(body.array(), 0, bodyLength) != expectedCrc) {
                break;
            }
            body.flip();
            byte kindCode = body.get();
            int epoch = body.getInt();
            long offset = body.getLong();
            boolean knownKind = kindCode == LogEntry.Kind.LEADER_CHANGE.code() || kindCode == LogEntry.Kind.DATA.code();
            if (!knownKind || offset != entries.size() || epoch < Math.max(1, lastEpoch)) {
                break;
            }
            byte[] payload = new byte[body.remaining()];
            body.get(payload);
            entries.add(new LogEntry(epoch, offset, LogEntry.Kind.forCode(kindCode), payload));
            positions.add(position);
            lastEpoch = epoch;
            position += HEADER_BYTES + bodyLength;
        }
        return position;
    }

    private static ElectionState readElectionState(Path file) throws IOException {
        if (!Files.exists(file)) {
            return ElectionState.INITIAL;
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length != 20 || buffer.getInt(0) != STATE_VERSION || buffer.getInt(16) != crc(bytes, 0, 16)) {
            throw new IOException("corrupt quorum state file " + file + " (" + bytes.length
                    + " bytes); refusing to start without knowing this node's vote");
        }
        return new ElectionState(buffer.getInt(4), buffer.getInt(8), buffer.getInt(12));
    }

    private void readFully(ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int read = log.read(buffer, at);
            if (read < 0) {
                throw new IOException("unexpected end of " + directory.resolve(LOG_FILE) + " at " + at);
            }
            at += read;
        }
    }

    private static void writeFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            at += channel.write(buffer, at);
        }
    }

    private static int crc(byte[] bytes, int from, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, from, length);
        return (int) crc.getValue();
    }
}
