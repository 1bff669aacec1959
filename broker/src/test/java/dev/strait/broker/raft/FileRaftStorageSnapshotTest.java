package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Snapshots, log truncation behind them, and the high-watermark checkpoint on real files, crashes included. */
class FileRaftStorageSnapshotTest {

    private static final byte[] CONTENT = "snapshot content".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;

    @TempDir
    Path other;

    /** Entries 0..9, epochs 1 (0-3), 2 (4-7), 3 (8-9). */
    private static List<LogEntry> entries() {
        List<LogEntry> entries = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int epoch = i < 4 ? 1 : i < 8 ? 2 : 3;
            entries.add(new LogEntry(epoch, i, LogEntry.Kind.DATA, ("entry-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        return entries;
    }

    private static FileRaftStorage withEntries(Path directory) throws IOException {
        FileRaftStorage storage = FileRaftStorage.open(directory);
        entries().forEach(storage::append);
        storage.flush();
        return storage;
    }

    private static List<LogEntry> read(RaftStorage storage) {
        List<LogEntry> read = new ArrayList<>();
        for (long offset = storage.startOffset(); offset < storage.endOffset(); offset++) {
            read.add(storage.entry(offset));
        }
        return read;
    }

    private static byte[] content(RaftStorage storage) {
        SnapshotInfo info = storage.latestSnapshot().orElseThrow();
        return storage.readSnapshot(info.id(), 0, (int) info.sizeBytes()).orElseThrow();
    }

    private List<String> files() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** The offset of the first record of the log file. */
    private long firstRecordOffset() throws IOException {
        byte[] bytes = Files.readAllBytes(dir.resolve(FileRaftStorage.LOG_FILE));
        return ByteBuffer.wrap(bytes).getLong(8 + 1 + 4);
    }

    @Test
    void snapshotTruncatesTheLogOnDiskAndInMemoryAndSurvivesReopen() throws IOException {
        // Given
        OffsetAndEpoch id = new OffsetAndEpoch(6, 2);
        try (FileRaftStorage storage = withEntries(dir)) {
            // When
            storage.installSnapshot(id, CONTENT);
            // Then
            assertThat(storage.startOffset()).isEqualTo(6);
            assertThat(read(storage)).isEqualTo(entries().subList(6, 10));
            assertThatThrownBy(() -> storage.entry(5)).isInstanceOf(IndexOutOfBoundsException.class);
            storage.append(new LogEntry(3, 10, LogEntry.Kind.DATA, new byte[] {10}));
            storage.flush();
        }
        assertThat(files()).contains("00000000000000000006-0000000002.checkpoint", FileRaftStorage.LOG_FILE);
        assertThat(firstRecordOffset()).isEqualTo(6);
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.latestSnapshot()).hasValueSatisfying(s -> {
                assertThat(s.id()).isEqualTo(id);
                assertThat(s.sizeBytes()).isEqualTo(CONTENT.length);
            });
            assertThat(content(reopened)).isEqualTo(CONTENT);
            assertThat(reopened.startOffset()).isEqualTo(6);
            assertThat(reopened.endOffset()).isEqualTo(11);
            assertThat(reopened.entry(6)).isEqualTo(entries().get(6));
            assertThat(reopened.readSnapshot(id, 9, 100)).hasValue("content".getBytes(StandardCharsets.UTF_8));
            assertThat(reopened.readSnapshot(new OffsetAndEpoch(6, 1), 0, 100)).isEmpty();
        }
    }

    @Test
    void aNewerSnapshotReplacesTheOlderOne() throws IOException {
        try (FileRaftStorage storage = withEntries(dir)) {
            storage.installSnapshot(new OffsetAndEpoch(4, 1), CONTENT);
            storage.installSnapshot(new OffsetAndEpoch(9, 3), "newer".getBytes(StandardCharsets.UTF_8));
            assertThat(storage.startOffset()).isEqualTo(9);
            assertThat(storage.readSnapshot(new OffsetAndEpoch(4, 1), 0, 10)).isEmpty();
            assertThatThrownBy(() -> storage.installSnapshot(new OffsetAndEpoch(8, 3), CONTENT))
                    .isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(files())
                .filteredOn(n -> n.endsWith(".checkpoint"))
                .containsExactly("00000000000000000009-0000000003.checkpoint");
    }

    @Test
    void aSnapshotTheLogDoesNotContinueEmptiesTheLog() throws IOException {
        // Given: the log's entry 5 is of epoch 2, the snapshot says its last entry (5) is of epoch 3
        try (FileRaftStorage storage = withEntries(dir)) {
            // When
            storage.installSnapshot(new OffsetAndEpoch(6, 3), CONTENT);
            // Then
            assertThat(storage.startOffset()).isEqualTo(6);
            assertThat(storage.endOffset()).isEqualTo(6);
            storage.append(new LogEntry(4, 6, LogEntry.Kind.DATA, new byte[] {6}));
            storage.flush();
        }
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.startOffset()).isEqualTo(6);
            assertThat(reopened.endOffset()).isEqualTo(7);
            assertThat(reopened.entry(6).epoch()).isEqualTo(4);
        }
    }

    @Test
    void aSnapshotBeyondTheLogEndLeavesAnEmptyLogAtItsEnd() throws IOException {
        try (FileRaftStorage storage = withEntries(dir)) {
            storage.installSnapshot(new OffsetAndEpoch(40, 5), CONTENT);
            assertThat(storage.startOffset()).isEqualTo(40);
            assertThat(storage.endOffset()).isEqualTo(40);
        }
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.endOffset()).isEqualTo(40);
            assertThat(Files.size(dir.resolve(FileRaftStorage.LOG_FILE))).isZero();
        }
    }

    @Test
    void aCrashAfterTheSnapshotBeforeTheLogRewriteIsFinishedOnOpen() throws IOException {
        // Given: the whole log on disk, and a snapshot of 0..5 that made it to its final name
        withEntries(dir).close();
        try (FileRaftStorage elsewhere = withEntries(other)) {
            elsewhere.installSnapshot(new OffsetAndEpoch(6, 2), CONTENT);
        }
        String name = FileRaftStorage.snapshotFileName(new OffsetAndEpoch(6, 2));
        Files.copy(other.resolve(name), dir.resolve(name));
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(reopened.startOffset()).isEqualTo(6);
            assertThat(read(reopened)).isEqualTo(entries().subList(6, 10));
        }
        assertThat(firstRecordOffset())
                .as("the log was rewritten behind the snapshot")
                .isEqualTo(6);
    }

    @Test
    void aCrashAfterADownloadedSnapshotThatTheLogDoesNotContinueEmptiesTheLogOnOpen() throws IOException {
        // Given: the whole log on disk, and a snapshot whose last entry (5) is of epoch 3, not the log's 2
        withEntries(dir).close();
        try (FileRaftStorage elsewhere = FileRaftStorage.open(other)) {
            elsewhere.installSnapshot(new OffsetAndEpoch(6, 3), CONTENT);
        }
        String name = FileRaftStorage.snapshotFileName(new OffsetAndEpoch(6, 3));
        Files.copy(other.resolve(name), dir.resolve(name));
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(reopened.startOffset()).isEqualTo(6);
            assertThat(reopened.endOffset()).isEqualTo(6);
        }
    }

    @Test
    void aTornSnapshotTempFileIsDeletedAndTheOldStateKept() throws IOException {
        // Given: power failed while the temp file of a snapshot was written
        withEntries(dir).close();
        Files.write(
                dir.resolve(
                        FileRaftStorage.snapshotFileName(new OffsetAndEpoch(6, 2)) + FileRaftStorage.PARTIAL_SUFFIX),
                new byte[] {1, 2, 3});
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(reopened.latestSnapshot()).isEmpty();
            assertThat(read(reopened)).isEqualTo(entries());
        }
        assertThat(files()).noneMatch(n -> n.endsWith(FileRaftStorage.PARTIAL_SUFFIX));
    }

    @Test
    void aCorruptSnapshotUnderItsFinalNameRefusesToStart() throws IOException {
        // Given: a bit flipped in the content of the latest snapshot after it was written
        try (FileRaftStorage storage = withEntries(dir)) {
            storage.installSnapshot(new OffsetAndEpoch(6, 2), CONTENT);
        }
        Path snapshot = dir.resolve(FileRaftStorage.snapshotFileName(new OffsetAndEpoch(6, 2)));
        try (RandomAccessFile file = new RandomAccessFile(snapshot.toFile(), "rw")) {
            file.seek(FileRaftStorage.SNAPSHOT_HEADER_BYTES + 3);
            int b = file.read();
            file.seek(FileRaftStorage.SNAPSHOT_HEADER_BYTES + 3);
            file.write(b ^ 1);
        }
        // When / Then
        assertThatThrownBy(() -> FileRaftStorage.open(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("fails its checksum")
                .hasMessageContaining("refusing to start");
        // and a torn one (cut short) likewise
        try (RandomAccessFile file = new RandomAccessFile(snapshot.toFile(), "rw")) {
            file.setLength(FileRaftStorage.SNAPSHOT_HEADER_BYTES + 2);
        }
        assertThatThrownBy(() -> FileRaftStorage.open(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("wrong size");
    }

    @Test
    void aLogThatStartsAfterItsSnapshotIsRefused() throws IOException {
        // Given: a log rewritten behind a snapshot at 8, but only an older snapshot (at 6) is left
        try (FileRaftStorage storage = withEntries(dir)) {
            storage.installSnapshot(new OffsetAndEpoch(8, 2), CONTENT);
        }
        Files.delete(dir.resolve(FileRaftStorage.snapshotFileName(new OffsetAndEpoch(8, 2))));
        try (FileRaftStorage elsewhere = withEntries(other)) {
            elsewhere.installSnapshot(new OffsetAndEpoch(6, 2), CONTENT);
        }
        String name = FileRaftStorage.snapshotFileName(new OffsetAndEpoch(6, 2));
        Files.copy(other.resolve(name), dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        // When / Then
        assertThatThrownBy(() -> FileRaftStorage.open(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("starts at offset 8")
                .hasMessageContaining("missing");
    }

    @Test
    void theHighWatermarkCheckpointSurvivesReopenAndACorruptOneIsIgnored() throws IOException {
        try (FileRaftStorage storage = withEntries(dir)) {
            assertThat(storage.highWatermark()).isZero();
            storage.writeHighWatermark(7);
        }
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.highWatermark()).isEqualTo(7);
        }
        Files.write(dir.resolve(FileRaftStorage.HIGH_WATERMARK_FILE), new byte[40]);
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.highWatermark()).isZero();
            reopened.writeHighWatermark(9);
        }
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.highWatermark())
                    .as("a later checkpoint replaces the garbage")
                    .isEqualTo(9);
        }
    }

    @Test
    void aSoleVoterRestartsFromItsSnapshotAndItsCheckpointedHighWatermark() throws IOException {
        // Given: a sole voter that committed 20 entries, snapshotted, and committed 5 more
        RaftConfig config = RaftConfig.defaults().withTransfer(1024, 1);
        List<RaftMessage> outbox = new ArrayList<>();
        long snapshotEnd;
        long committed;
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            RaftNode node = new RaftNode(1, List.of(1), config, storage, outbox::add, new Random(1), 0);
            long now = tickUntilLeader(node);
            for (int i = 0; i < 20; i++) {
                node.propose(("a" + i).getBytes(StandardCharsets.UTF_8), now);
            }
            snapshotEnd = node.highWatermark();
            node.createSnapshot(snapshotEnd, CONTENT, now);
            for (int i = 0; i < 5; i++) {
                node.propose(("b" + i).getBytes(StandardCharsets.UTF_8), now);
            }
            committed = node.highWatermark();
            node.tick(now + 10);
        }
        // When
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            RaftNode restarted = new RaftNode(1, List.of(1), config, storage, outbox::add, new Random(2), 0);
            // Then: before it leads again it knows what was committed, and holds only the suffix
            assertThat(restarted.isLeader()).isFalse();
            assertThat(restarted.highWatermark()).isEqualTo(committed);
            assertThat(restarted.logStartOffset()).isEqualTo(snapshotEnd);
            assertThat(restarted.endOffset() - restarted.logStartOffset()).isEqualTo(5);
            assertThat(restarted.readLatestSnapshot()).isEqualTo(CONTENT);
            assertThat(new String(restarted.entry(snapshotEnd).payload(), StandardCharsets.UTF_8))
                    .isEqualTo("b0");
            tickUntilLeader(restarted);
            assertThat(restarted.highWatermark()).isEqualTo(committed + 1);
        }
        assertThat(outbox).isEmpty();
    }

    private static long tickUntilLeader(RaftNode node) {
        long now = 0;
        for (int i = 0; i < 5 && !node.isLeader(); i++) {
            now = Math.max(now, node.nextDeadlineMs());
            node.tick(now);
        }
        assertThat(node.isLeader()).isTrue();
        return now;
    }
}
