package dev.strait.broker.raft;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RaftStorage} in one directory.
 *
 * <ul>
 *   <li>{@value #LOG_FILE}: the log from its start offset on, one record per entry: {@code int bodyLength,
 *       int crc32c(body), body} where body is {@code byte kind, int epoch, long offset, payload}. Appends go to
 *       the OS cache; {@link #flush()} fsyncs. On open the file is read front to back and cut at the first record
 *       that is short, fails its CRC, or does not continue the offsets and epochs: that is the torn tail of a
 *       write a crash interrupted, never acknowledged because acknowledgement waits for the fsync.
 *   <li>{@code <endOffset>-<epoch>.checkpoint} (20 and 10 digits, KIP-630's naming): the latest snapshot, a
 *       {@value #SNAPSHOT_HEADER_BYTES}-byte header ({@code int magic, int version, long endOffset, int epoch,
 *       long contentSize, int crc32c(content), int crc32c(header before it)}) and the content. Written as
 *       {@code .checkpoint.part}, fsynced, renamed, and the directory fsynced, so a snapshot under its final
 *       name is whole; a {@code .part} file is the torn remains of a crash and is deleted on open.
 *       Installing a snapshot then rewrites the log to the suffix after it (temp file, fsync, rename) and
 *       deletes older snapshots. A crash between these steps is finished on the next open: entries the latest
 *       snapshot covers are dropped, and a log that does not continue it (it diverged, or ended earlier) is
 *       emptied.
 *   <li>{@value #STATE_FILE}: the {@link ElectionState}, {@code int version, int epoch, int votedFor,
 *       int leaderId, int crc32c}, replaced atomically (temp file, fsync, rename, fsync of the directory), so it
 *       is either the old or the new state and never torn. A corrupt state file is an error, not something to
 *       recover from: forgetting a vote could elect two leaders.
 *   <li>{@value #HIGH_WATERMARK_FILE}: the last checkpointed high watermark, {@code int version, long hw,
 *       int crc32c}, overwritten in place and not fsynced (see {@link #writeHighWatermark}). It only saves a
 *       restarted node from waiting for a leader before it can use what it knows is committed, so a corrupt one
 *       is ignored (with a warning), never fatal.
 * </ul>
 *
 * A corrupt snapshot under its final name (its fsync lied, or the disk rotted) stops the open: the log no longer
 * holds what it covered. The suffix of the log is also kept in memory. IO errors are rethrown as
 * {@link UncheckedIOException}; the broker treats them as fatal for the node. Not thread-safe.
 */
public final class FileRaftStorage implements RaftStorage, AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(FileRaftStorage.class);

    public static final String LOG_FILE = "raft.log";
    public static final String STATE_FILE = "quorum-state";
    public static final String HIGH_WATERMARK_FILE = "high-watermark";
    public static final String SNAPSHOT_SUFFIX = ".checkpoint";
    public static final String PARTIAL_SUFFIX = ".part";
    static final int SNAPSHOT_HEADER_BYTES = 36;
    private static final int SNAPSHOT_MAGIC = 0x53545253; // "STRS"
    private static final int SNAPSHOT_VERSION = 1;
    private static final Pattern SNAPSHOT_NAME = Pattern.compile("(\\d{20})-(\\d{10})\\.checkpoint");
    private static final int STATE_VERSION = 1;
    private static final int HIGH_WATERMARK_VERSION = 1;
    private static final int HEADER_BYTES = 8;
    private static final int FIXED_BODY_BYTES = 1 + 4 + 8;
    private static final int MAX_ENTRY_BYTES = 8 * 1024 * 1024;
    private static final int READ_CHUNK_BYTES = 1024 * 1024;

    private final Path directory;
    private FileChannel log;
    private ArrayList<LogEntry> entries = new ArrayList<>();
    /** File position of each entry in {@link #entries}. */
    private long[] positions = new long[64];

    private final long recoveredTruncatedBytes;
    private long startOffset;
    private long fileEnd;
    private ElectionState electionState;
    private @Nullable SnapshotInfo latestSnapshot;
    private long highWatermark;
    /** Opened on the first checkpoint. */
    private @Nullable FileChannel highWatermarkFile;

    private FileRaftStorage(Path directory) throws IOException {
        this.directory = directory;
        this.electionState = readElectionState(directory.resolve(STATE_FILE));
        this.highWatermark = readHighWatermark(directory.resolve(HIGH_WATERMARK_FILE));
        deleteLeftovers();
        this.latestSnapshot = recoverSnapshots();
        this.startOffset = latestSnapshot == null ? 0 : latestSnapshot.endOffset();
        this.log = FileChannel.open(
                logFile(), StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        long size = log.size();
        boolean rewrite = recoverLog(size);
        this.recoveredTruncatedBytes = size - fileEnd;
        if (rewrite) {
            // a crash came between storing a snapshot and rewriting the log behind it: finish that now
            rewriteLog();
        } else if (recoveredTruncatedBytes > 0) {
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

    /** The file name of snapshot {@code id} (KIP-630's {@code <endOffset>-<epoch>.checkpoint}). */
    public static String snapshotFileName(OffsetAndEpoch id) {
        return String.format("%020d-%010d%s", id.offset(), id.epoch(), SNAPSHOT_SUFFIX);
    }

    @Override
    public ElectionState electionState() {
        return electionState;
    }

    @Override
    public void writeElectionState(ElectionState state) {
        ByteBuffer buffer = ByteBuffer.allocate(20);
        buffer.putInt(STATE_VERSION)
                .putInt(state.epoch())
                .putInt(state.votedFor())
                .putInt(state.leaderId());
        buffer.putInt(crc(buffer.array(), 0, 16));
        replaceAtomically(STATE_FILE, buffer.array());
        electionState = state;
    }

    @Override
    public long startOffset() {
        return startOffset;
    }

    @Override
    public long endOffset() {
        return startOffset + entries.size();
    }

    @Override
    public LogEntry entry(long offset) {
        if (offset < startOffset || offset >= endOffset()) {
            throw new IndexOutOfBoundsException(
                    "offset " + offset + " outside the log [" + startOffset + ", " + endOffset() + ")");
        }
        return entries.get(Math.toIntExact(offset - startOffset));
    }

    @Override
    public void append(LogEntry entry) {
        if (entry.offset() != endOffset()) {
            throw new IllegalStateException("append of " + entry + " at end offset " + endOffset());
        }
        ByteBuffer record = encode(entry);
        try {
            writeFully(log, record, fileEnd);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to " + logFile(), e);
        }
        addEntry(entry, fileEnd);
        fileEnd += record.limit();
    }

    @Override
    public void truncateTo(long endOffset) {
        if (endOffset >= endOffset()) {
            return;
        }
        if (endOffset < startOffset) {
            throw new IllegalArgumentException(
                    "truncation to " + endOffset + " below the log start " + startOffset + " (the snapshot covers it)");
        }
        int end = Math.toIntExact(endOffset - startOffset);
        long position = positions[end];
        try {
            log.truncate(position);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot truncate " + logFile(), e);
        }
        entries.subList(end, entries.size()).clear();
        fileEnd = position;
    }

    @Override
    public void flush() {
        try {
            log.force(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot fsync " + logFile(), e);
        }
    }

    @Override
    public Optional<SnapshotInfo> latestSnapshot() {
        return Optional.ofNullable(latestSnapshot);
    }

    @Override
    public Optional<byte[]> readSnapshot(OffsetAndEpoch id, long position, int maxBytes) {
        if (latestSnapshot == null || !latestSnapshot.id().equals(id)) {
            return Optional.empty();
        }
        if (position < 0 || position > latestSnapshot.sizeBytes() || maxBytes < 0) {
            throw new IllegalArgumentException("position " + position + " outside snapshot " + latestSnapshot);
        }
        int length = (int) Math.min(maxBytes, latestSnapshot.sizeBytes() - position);
        Path file = directory.resolve(snapshotFileName(id));
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer buffer = ByteBuffer.allocate(length);
            readFully(in, file, buffer, SNAPSHOT_HEADER_BYTES + position);
            return Optional.of(buffer.array());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read snapshot " + file, e);
        }
    }

    @Override
    public void installSnapshot(OffsetAndEpoch id, byte[] content) {
        if (latestSnapshot != null && id.offset() <= latestSnapshot.endOffset()) {
            throw new IllegalArgumentException("snapshot " + id + " is not beyond the latest " + latestSnapshot);
        }
        SnapshotInfo info = new SnapshotInfo(id, content.length, crc(content, 0, content.length));
        Path target = directory.resolve(snapshotFileName(id));
        Path partial = directory.resolve(snapshotFileName(id) + PARTIAL_SUFFIX);
        try {
            try (FileChannel out = FileChannel.open(
                    partial,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE,
                    StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(out, ByteBuffer.wrap(snapshotHeader(info)), 0);
                writeFully(out, ByteBuffer.wrap(content), SNAPSHOT_HEADER_BYTES);
                out.force(true);
            }
            Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            forceDirectory();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write snapshot " + target, e);
        }
        SnapshotInfo previous = latestSnapshot;
        latestSnapshot = info;
        boolean continues = id.offset() - 1 >= startOffset
                && id.offset() - 1 < endOffset()
                && entry(id.offset() - 1).epoch() == id.epoch();
        int keepFrom = continues ? Math.toIntExact(id.offset() - startOffset) : entries.size();
        entries.subList(0, keepFrom).clear();
        startOffset = id.offset();
        try {
            rewriteLog();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot rewrite " + logFile() + " behind snapshot " + id, e);
        }
        if (previous != null) {
            deleteQuietly(directory.resolve(snapshotFileName(previous.id())));
        }
    }

    @Override
    public long highWatermark() {
        return highWatermark;
    }

    @Override
    public void writeHighWatermark(long value) {
        ByteBuffer buffer = ByteBuffer.allocate(16);
        buffer.putInt(HIGH_WATERMARK_VERSION).putLong(value);
        buffer.putInt(crc(buffer.array(), 0, 12));
        // Overwritten in place and not fsynced, so a checkpoint costs the loop one write to the page cache (a rename
        // can cost a journal commit). An older checkpoint after a crash only means a longer wait for the leader; a
        // newer one cannot outrun the log, whose entries below it were flushed first; a torn one fails its CRC and
        // is ignored.
        try {
            FileChannel file = highWatermarkFile;
            if (file == null) {
                // truncated once, so a file left longer by anything else cannot hide every later checkpoint
                file = FileChannel.open(
                        directory.resolve(HIGH_WATERMARK_FILE),
                        StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE,
                        StandardOpenOption.TRUNCATE_EXISTING);
                highWatermarkFile = file;
            }
            writeFully(file, ByteBuffer.wrap(buffer.array()), 0);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + directory.resolve(HIGH_WATERMARK_FILE), e);
        }
        highWatermark = value;
    }

    @Override
    public void close() throws IOException {
        log.close();
        if (highWatermarkFile != null) {
            highWatermarkFile.close();
        }
    }

    // ---------------------------------------------------------------- recovery

    private void deleteLeftovers() throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(SNAPSHOT_SUFFIX + PARTIAL_SUFFIX) || name.equals(LOG_FILE + ".tmp")) {
                    LOGGER.info("deleting {}, left by a crash while it was written", file);
                    Files.delete(file);
                }
            }
        }
    }

    /** Finds the latest snapshot, checks it whole, and deletes older ones (left by an interrupted cleanup). */
    private @Nullable SnapshotInfo recoverSnapshots() throws IOException {
        TreeMap<OffsetAndEpoch, Path> found = new TreeMap<>((a, b) -> a.offset() != b.offset()
                ? Long.compare(a.offset(), b.offset())
                : Integer.compare(a.epoch(), b.epoch()));
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "*" + SNAPSHOT_SUFFIX)) {
            for (Path file : files) {
                Matcher name = SNAPSHOT_NAME.matcher(file.getFileName().toString());
                if (name.matches()) {
                    found.put(new OffsetAndEpoch(Long.parseLong(name.group(1)), Integer.parseInt(name.group(2))), file);
                }
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        OffsetAndEpoch latestId = found.lastKey();
        Path latestFile = Objects.requireNonNull(found.get(latestId), "the last key's file");
        SnapshotInfo latest = checkSnapshot(latestId, latestFile);
        for (Path older : found.headMap(latestId, false).values()) {
            LOGGER.info("deleting {}, superseded by {}", older, latestFile.getFileName());
            Files.delete(older);
        }
        return latest;
    }

    private static SnapshotInfo checkSnapshot(OffsetAndEpoch id, Path file) throws IOException {
        String refusal = "refusing to start: the log behind it was truncated, so this node no longer has the "
                + "metadata it covers. Restore the directory from a backup, or (only if a majority of the other "
                + "controllers is healthy) move it away so that the node fetches the metadata from the leader";
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = in.size();
            if (size < SNAPSHOT_HEADER_BYTES) {
                throw new IOException("snapshot " + file + " is torn (" + size + " bytes); " + refusal);
            }
            ByteBuffer header = ByteBuffer.allocate(SNAPSHOT_HEADER_BYTES);
            readFully(in, file, header, 0);
            byte[] bytes = header.array();
            boolean valid = header.getInt(0) == SNAPSHOT_MAGIC
                    && header.getInt(4) == SNAPSHOT_VERSION
                    && header.getInt(32) == crc(bytes, 0, 32)
                    && header.getLong(8) == id.offset()
                    && header.getInt(16) == id.epoch()
                    && header.getLong(20) == size - SNAPSHOT_HEADER_BYTES;
            if (!valid) {
                throw new IOException("snapshot " + file + " has a corrupt header or a wrong size; " + refusal);
            }
            int expectedCrc = header.getInt(28);
            CRC32C crc = new CRC32C();
            ByteBuffer chunk = ByteBuffer.allocate((int) Math.min(READ_CHUNK_BYTES, size));
            for (long at = SNAPSHOT_HEADER_BYTES; at < size; ) {
                chunk.clear();
                chunk.limit((int) Math.min(chunk.capacity(), size - at));
                readFully(in, file, chunk, at);
                crc.update(chunk.array(), 0, chunk.limit());
                at += chunk.limit();
            }
            if ((int) crc.getValue() != expectedCrc) {
                throw new IOException("snapshot " + file + " fails its checksum; " + refusal);
            }
            return new SnapshotInfo(id, size - SNAPSHOT_HEADER_BYTES, expectedCrc);
        }
    }

    /**
     * Reads the valid records into memory, keeping only those from {@link #startOffset} on, and sets
     * {@link #fileEnd} to where the valid records end. Returns whether the file must be rewritten because it
     * holds entries the latest snapshot covers (or entries that do not continue it).
     */
    private boolean recoverLog(long size) throws IOException {
        // one large read at a time: a restart reads the whole suffix, and two small reads per entry cost seconds
        // window.position() always holds the byte at file offset `position`, where the next record starts
        ByteBuffer window =
                ByteBuffer.allocate((int) Math.min(size, READ_CHUNK_BYTES)).flip();
        long position = 0;
        int lastEpoch = 0;
        long expected = -1;
        boolean dropped = false;
        int epochBeforeStart = -1;
        while (position + HEADER_BYTES <= size) {
            if (window.remaining() < HEADER_BYTES) {
                window = refill(window, position, HEADER_BYTES, size);
            }
            int bodyLength = window.getInt(window.position());
            int expectedCrc = window.getInt(window.position() + 4);
            if (bodyLength < FIXED_BODY_BYTES
                    || bodyLength > MAX_ENTRY_BYTES
                    || position + HEADER_BYTES + bodyLength > size) {
                break;
            }
            if (window.remaining() < HEADER_BYTES + bodyLength) {
                window = refill(window, position, HEADER_BYTES + bodyLength, size);
            }
            int bodyAt = window.position() + HEADER_BYTES;
            CRC32C crc = new CRC32C();
            crc.update(window.array(), bodyAt, bodyLength);
            if ((int) crc.getValue() != expectedCrc) {
                break;
            }
            ByteBuffer body = window.slice(bodyAt, bodyLength);
            window.position(bodyAt + bodyLength);
            byte kindCode = body.get();
            int epoch = body.getInt();
            long offset = body.getLong();
            if (expected < 0) {
                if (offset > startOffset || (latestSnapshot == null && offset != 0)) {
                    throw new IOException(logFile() + " starts at offset " + offset + " but "
                            + (latestSnapshot == null
                                    ? "there is no snapshot"
                                    : "the latest snapshot ends at " + startOffset)
                            + ": the entries in between are missing. Restore the directory from a "
                            + "backup, or (only if a majority of the other controllers is healthy) move it away so "
                            + "that the node fetches the metadata from the leader");
                }
                expected = offset;
                if (offset == startOffset && latestSnapshot != null) {
                    lastEpoch = latestSnapshot.id().epoch(); // the suffix continues the snapshot's last entry
                }
            }
            boolean knownKind = kindCode == LogEntry.Kind.LEADER_CHANGE.code() || kindCode == LogEntry.Kind.DATA.code();
            if (!knownKind || offset != expected || epoch < Math.max(1, lastEpoch)) {
                break;
            }
            long recordStart = position;
            position += HEADER_BYTES + bodyLength;
            expected = offset + 1;
            lastEpoch = epoch;
            if (offset < startOffset) {
                // covered by the snapshot: a crash came before the log was rewritten behind it
                dropped = true;
                if (offset == startOffset - 1) {
                    epochBeforeStart = epoch;
                }
                continue;
            }
            byte[] payload = new byte[body.remaining()];
            body.get(payload);
            addEntry(new LogEntry(epoch, offset, LogEntry.Kind.forCode(kindCode), payload), recordStart);
        }
        fileEnd = position;
        // Entries below the start offset exist only behind a snapshot.
        if (dropped
                && epochBeforeStart
                        != Objects.requireNonNull(latestSnapshot, "a start offset above 0 is a snapshot's")
                                .id()
                                .epoch()) {
            // the log ended before the snapshot or diverged from it: what follows cannot continue the snapshot
            entries.clear();
        }
        return dropped;
    }

    /**
     * A window onto the log file from offset {@code from} (where the unread rest of {@code window} starts) holding
     * at least {@code needed} bytes, which the caller checked the file has: the unread rest moved to the front,
     * then filled from the file.
     */
    private ByteBuffer refill(ByteBuffer window, long from, int needed, long size) throws IOException {
        ByteBuffer next = window.capacity() >= needed
                ? window.compact()
                : ByteBuffer.allocate(Math.max(needed, window.capacity())).put(window);
        long fileAt = from + next.position();
        int limit = (int) Math.min(next.capacity(), next.position() + (size - fileAt));
        next.limit(limit);
        readFully(log, logFile(), next, fileAt);
        return next.flip();
    }

    // ---------------------------------------------------------------- helpers

    private void addEntry(LogEntry entry, long position) {
        int index = entries.size();
        if (index == positions.length) {
            positions = Arrays.copyOf(positions, positions.length * 2);
        }
        positions[index] = position;
        entries.add(entry);
    }

    /** Writes the entries in memory to a new log file and swaps it in atomically. */
    private void rewriteLog() throws IOException {
        Path temp = directory.resolve(LOG_FILE + ".tmp");
        List<LogEntry> kept = entries;
        // fresh arrays: the old ones are as large as the log was before the snapshot
        entries = new ArrayList<>(Math.max(64, kept.size()));
        positions = new long[Math.max(64, kept.size())];
        long position = 0;
        try (FileChannel out = FileChannel.open(
                temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (LogEntry entry : kept) {
                ByteBuffer record = encode(entry);
                writeFully(out, record, position);
                addEntry(entry, position);
                position += record.limit();
            }
            out.force(true);
        }
        log.close();
        Files.move(temp, logFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory();
        log = FileChannel.open(logFile(), StandardOpenOption.READ, StandardOpenOption.WRITE);
        fileEnd = position;
    }

    private static ByteBuffer encode(LogEntry entry) {
        byte[] payload = entry.payload();
        ByteBuffer record = ByteBuffer.allocate(HEADER_BYTES + FIXED_BODY_BYTES + payload.length);
        record.putInt(FIXED_BODY_BYTES + payload.length).putInt(0);
        record.put(entry.kind().code())
                .putInt(entry.epoch())
                .putLong(entry.offset())
                .put(payload);
        record.putInt(4, crc(record.array(), HEADER_BYTES, FIXED_BODY_BYTES + payload.length));
        record.flip();
        return record;
    }

    private static byte[] snapshotHeader(SnapshotInfo info) {
        ByteBuffer header = ByteBuffer.allocate(SNAPSHOT_HEADER_BYTES);
        header.putInt(SNAPSHOT_MAGIC)
                .putInt(SNAPSHOT_VERSION)
                .putLong(info.id().offset())
                .putInt(info.id().epoch())
                .putLong(info.sizeBytes())
                .putInt(info.crc32c());
        header.putInt(crc(header.array(), 0, 32));
        return header.array();
    }

    private void replaceAtomically(String name, byte[] bytes) {
        Path target = directory.resolve(name);
        Path temp = directory.resolve(name + ".tmp");
        try {
            try (FileChannel out = FileChannel.open(
                    temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                writeFully(out, ByteBuffer.wrap(bytes), 0);
                out.force(true);
            }
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            forceDirectory();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    /** A rename lives in the directory; without this a crash can bring back the old file. */
    private void forceDirectory() throws IOException {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // the next open deletes snapshots older than the latest
            LOGGER.warn("cannot delete the superseded snapshot {}: {}", file, e.toString());
        }
    }

    private Path logFile() {
        return directory.resolve(LOG_FILE);
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

    private static long readHighWatermark(Path file) throws IOException {
        if (!Files.exists(file)) {
            return 0;
        }
        byte[] bytes = Files.readAllBytes(file);
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        if (bytes.length != 16
                || buffer.getInt(0) != HIGH_WATERMARK_VERSION
                || buffer.getInt(12) != crc(bytes, 0, 12)
                || buffer.getLong(4) < 0) {
            LOGGER.warn(
                    "ignoring the corrupt high-watermark checkpoint {} ({} bytes): the node learns the high "
                            + "watermark from the leader instead",
                    file,
                    bytes.length);
            return 0;
        }
        return buffer.getLong(4);
    }

    private static void readFully(FileChannel channel, Path file, ByteBuffer buffer, long position) throws IOException {
        long at = position;
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, at);
            if (read < 0) {
                throw new IOException("unexpected end of " + file + " at " + at);
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
