package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileRaftStorageTest {

    @TempDir
    Path dir;

    @Test
    void logAndElectionStateSurviveReopen() throws IOException {
        // Given
        List<LogEntry> written = entries(5);
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            written.forEach(storage::append);
            storage.flush();
            storage.writeElectionState(new ElectionState(3, 2, 2));
        }
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(reopened.recoveredTruncatedBytes()).isZero();
            assertThat(reopened.electionState()).isEqualTo(new ElectionState(3, 2, 2));
            assertThat(read(reopened)).isEqualTo(written);
        }
    }

    @Test
    void tornTailIsTruncatedAndAppendsContinue() throws IOException {
        // Given: the last record lost its final bytes mid-write
        List<LogEntry> written = entries(4);
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            written.forEach(storage::append);
            storage.flush();
        }
        Path logFile = dir.resolve(FileRaftStorage.LOG_FILE);
        long fullSize = Files.size(logFile);
        try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "rw")) {
            file.setLength(fullSize - 3);
        }
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(read(reopened)).isEqualTo(written.subList(0, 3));
            assertThat(reopened.recoveredTruncatedBytes()).isPositive();
            reopened.append(written.get(3));
            reopened.flush();
        }
        try (FileRaftStorage again = FileRaftStorage.open(dir)) {
            assertThat(read(again)).isEqualTo(written);
            assertThat(again.recoveredTruncatedBytes()).isZero();
        }
    }

    @Test
    void corruptRecordCutsTheLogThere() throws IOException {
        // Given: a flipped byte inside the payload of the third record
        List<LogEntry> written = entries(5);
        long thirdRecordPosition;
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            storage.append(written.get(0));
            storage.append(written.get(1));
            storage.flush();
            thirdRecordPosition = Files.size(dir.resolve(FileRaftStorage.LOG_FILE));
            written.subList(2, 5).forEach(storage::append);
            storage.flush();
        }
        try (RandomAccessFile file =
                new RandomAccessFile(dir.resolve(FileRaftStorage.LOG_FILE).toFile(), "rw")) {
            file.seek(thirdRecordPosition + 8 + 13);
            int b = file.read();
            file.seek(thirdRecordPosition + 8 + 13);
            file.write(b ^ 0xFF);
        }
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(read(reopened)).isEqualTo(written.subList(0, 2));
            assertThat(Files.size(dir.resolve(FileRaftStorage.LOG_FILE))).isEqualTo(thirdRecordPosition);
        }
    }

    @Test
    void garbageAfterTheLastRecordIsDropped() throws IOException {
        // Given: a length prefix promising more than the file holds
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            entries(2).forEach(storage::append);
            storage.flush();
        }
        Files.write(
                dir.resolve(FileRaftStorage.LOG_FILE),
                new byte[] {0, 0, 0, 100, 1, 2, 3, 4, 5},
                java.nio.file.StandardOpenOption.APPEND);
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(reopened.endOffset()).isEqualTo(2);
            assertThat(reopened.recoveredTruncatedBytes()).isEqualTo(9);
        }
    }

    @Test
    void aLogLargerThanTheReadWindowWithRecordsAcrossItsEdgesReadsBackWhole() throws IOException {
        // Given: 2.5 MB of records of odd sizes, one of them larger than the 1 MiB window
        List<LogEntry> written = new ArrayList<>();
        Random random = new Random(3);
        for (int i = 0; i < 60; i++) {
            byte[] payload = new byte[i == 30 ? 3 * 1024 * 1024 : random.nextInt(60_000)];
            random.nextBytes(payload);
            written.add(new LogEntry(1 + i / 20, i, LogEntry.Kind.DATA, payload));
        }
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            written.forEach(storage::append);
            storage.flush();
        }
        // When
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            // Then
            assertThat(reopened.recoveredTruncatedBytes()).isZero();
            assertThat(read(reopened)).isEqualTo(written);
        }
    }

    @Test
    void truncationRewindsTheFile() throws IOException {
        List<LogEntry> written = entries(5);
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            written.forEach(storage::append);
            storage.truncateTo(2);
            LogEntry replacement = new LogEntry(7, 2, LogEntry.Kind.DATA, "new".getBytes(StandardCharsets.UTF_8));
            storage.append(replacement);
            storage.flush();
        }
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.endOffset()).isEqualTo(3);
            assertThat(reopened.entry(2).epoch()).isEqualTo(7);
            assertThat(reopened.entry(1)).isEqualTo(written.get(1));
        }
    }

    @Test
    void leftoverTempStateFileIsIgnoredAndCorruptStateRefused() throws IOException {
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            storage.writeElectionState(new ElectionState(4, 1, -1));
        }
        Files.write(dir.resolve(FileRaftStorage.STATE_FILE + ".tmp"), new byte[] {1, 2, 3});
        try (FileRaftStorage reopened = FileRaftStorage.open(dir)) {
            assertThat(reopened.electionState()).isEqualTo(new ElectionState(4, 1, -1));
        }
        Files.write(dir.resolve(FileRaftStorage.STATE_FILE), new byte[] {0, 0, 0, 1, 0, 0, 0, 9});
        assertThatThrownBy(() -> FileRaftStorage.open(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("corrupt quorum state");
    }

    @Test
    void singleVoterNodeOnFilesKeepsCommittedEntriesAcrossRestart() throws IOException {
        // Given
        List<RaftMessage> outbox = new ArrayList<>();
        long offset;
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            RaftNode node = new RaftNode(1, List.of(1), RaftConfig.defaults(), storage, outbox::add, new Random(1), 0);
            tickUntilLeader(node);
            CompletableFuture<Long> proposal = node.propose("topic-a".getBytes(StandardCharsets.UTF_8), 5_000);
            offset = proposal.join();
        }
        // When
        try (FileRaftStorage storage = FileRaftStorage.open(dir)) {
            RaftNode restarted =
                    new RaftNode(1, List.of(1), RaftConfig.defaults(), storage, outbox::add, new Random(2), 0);
            // Then: it resigned (a restarted leader steps down), then leads a new epoch and commits again
            assertThat(restarted.isLeader()).isFalse();
            tickUntilLeader(restarted);
            assertThat(restarted.epoch()).isEqualTo(2);
            assertThat(restarted.highWatermark()).isEqualTo(offset + 2);
            assertThat(new String(restarted.entry(offset).payload(), StandardCharsets.UTF_8))
                    .isEqualTo("topic-a");
        }
        assertThat(outbox).isEmpty();
    }

    private static void tickUntilLeader(RaftNode node) {
        for (int i = 0; i < 5 && !node.isLeader(); i++) {
            node.tick(node.nextDeadlineMs());
        }
        assertThat(node.isLeader()).isTrue();
    }

    private static List<LogEntry> entries(int count) {
        List<LogEntry> entries = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            entries.add(
                    new LogEntry(1 + i / 2, i, LogEntry.Kind.DATA, ("entry-" + i).getBytes(StandardCharsets.UTF_8)));
        }
        return entries;
    }

    private static List<LogEntry> read(RaftStorage storage) {
        List<LogEntry> entries = new ArrayList<>();
        for (long offset = 0; offset < storage.endOffset(); offset++) {
            entries.add(storage.entry(offset));
        }
        return entries;
    }
}
