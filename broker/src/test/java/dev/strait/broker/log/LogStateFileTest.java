package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogStateFileTest {

    @TempDir
    Path dir;

    @Test
    void stateSurvivesAWriteAndARead() throws Exception {
        // Given
        LogStateFile.State state = new LogStateFile.State(5, 17, 12, 9, 1_700_000_000_000L);

        // When
        LogStateFile.write(dir, state);

        // Then
        assertThat(LogStateFile.read(dir)).isEqualTo(state);
        assertThat(Files.readAllLines(dir.resolve(LogFiles.LOG_STATE_CHECKPOINT)))
                .containsExactly(
                        "0",
                        "logStartOffset 5",
                        "recoveryPoint 17",
                        "highWatermark 12",
                        "cleanerCheckpoint 9",
                        "oldestKeptTombstoneMs 1700000000000");
        assertThat(dir.resolve(LogFiles.LOG_STATE_CHECKPOINT + ".tmp")).doesNotExist();
    }

    @Test
    void aMissingFileIsANewLogAtOffsetZero() throws Exception {
        assertThat(LogStateFile.read(dir)).isEqualTo(new LogStateFile.State(0, 0, 0, 0, Long.MAX_VALUE));
    }

    @Test
    void aFileWithoutCompactionStateMeansNothingCompactedAndNoTombstoneKept() throws Exception {
        // Given: the format before compaction existed
        write("0", "logStartOffset 3", "recoveryPoint 8", "highWatermark 6");

        // When
        LogStateFile.State state = LogStateFile.read(dir);

        // Then
        assertThat(state).isEqualTo(new LogStateFile.State(3, 8, 6, 0, Long.MAX_VALUE));
    }

    @Test
    void aDamagedFileIsAnErrorNamingIt() throws Exception {
        Path file = dir.resolve(LogFiles.LOG_STATE_CHECKPOINT);

        write("0", "logStartOffset 3", "recoveryPoint x8", "highWatermark 6");
        assertThatThrownBy(() -> LogStateFile.read(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("malformed " + file);

        write("0", "logStartOffset 3", "highWatermark 6", "recoveryPoint 8");
        assertThatThrownBy(() -> LogStateFile.read(dir))
                .isInstanceOf(IOException.class)
                .hasMessage("expected recoveryPoint on line 3 of " + file);

        write("0", "logStartOffset 3", "recoveryPoint", "highWatermark 6");
        assertThatThrownBy(() -> LogStateFile.read(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("malformed " + file);

        write("1", "logStartOffset 3", "recoveryPoint 8", "highWatermark 6");
        assertThatThrownBy(() -> LogStateFile.read(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unsupported content in " + file);

        write("0", "logStartOffset 3");
        assertThatThrownBy(() -> LogStateFile.read(dir))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unsupported content in " + file);
    }

    private void write(String... lines) throws IOException {
        Files.write(dir.resolve(LogFiles.LOG_STATE_CHECKPOINT), List.of(lines));
    }
}
