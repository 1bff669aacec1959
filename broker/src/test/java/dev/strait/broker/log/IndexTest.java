package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class IndexTest {

    @TempDir
    Path dir;

    @Test
    void offsetIndexFindsTheLargestEntryAtOrBelowTheTarget() throws Exception {
        // Given
        OffsetIndex index = new OffsetIndex(dir.resolve("00000000000000000100.index"), 100);
        index.append(110, 1_000);
        index.append(120, 2_000);
        index.append(130, 3_000);

        // Then
        assertThat(index.lookup(99)).isEqualTo(new OffsetPosition(100, 0));
        assertThat(index.lookup(109)).isEqualTo(new OffsetPosition(100, 0));
        assertThat(index.lookup(110)).isEqualTo(new OffsetPosition(110, 1_000));
        assertThat(index.lookup(125)).isEqualTo(new OffsetPosition(120, 2_000));
        assertThat(index.lookup(1_000)).isEqualTo(new OffsetPosition(130, 3_000));
        index.close();
    }

    @Test
    void offsetIndexTruncatesAndFlushesToItsFile() throws Exception {
        // Given
        Path file = dir.resolve("00000000000000000000.index");
        OffsetIndex index = new OffsetIndex(file, 0);
        for (int i = 1; i <= 10; i++) {
            index.append(i * 10L, i * 100);
        }
        index.flush();
        assertThat(Files.size(file)).isEqualTo(10L * OffsetIndex.ENTRY_SIZE_BYTES);

        // When
        index.truncateTo(50);

        // Then
        assertThat(index.entries()).isEqualTo(4);
        assertThat(index.lookup(1_000)).isEqualTo(new OffsetPosition(40, 400));
        assertThat(Files.size(file)).isEqualTo(4L * OffsetIndex.ENTRY_SIZE_BYTES);
        index.close();
    }

    @Test
    void timeIndexKeepsOnlyIncreasingTimestampsAndLooksUpStrictlyBelow() throws Exception {
        // Given
        TimeIndex index = new TimeIndex(dir.resolve("00000000000000000000.timeindex"), 0);
        index.maybeAppend(1_000, 0);
        index.maybeAppend(1_000, 5); // same timestamp: ignored
        index.maybeAppend(900, 8); // older timestamp: ignored
        index.maybeAppend(2_000, 10);
        index.maybeAppend(3_000, 20);

        // Then
        assertThat(index.entries()).isEqualTo(3);
        assertThat(index.lookupBefore(1_000)).isEqualTo(new TimestampAndOffset(-1, 0));
        assertThat(index.lookupBefore(1_001)).isEqualTo(new TimestampAndOffset(1_000, 0));
        assertThat(index.lookupBefore(2_500)).isEqualTo(new TimestampAndOffset(2_000, 10));
        assertThat(index.lookupBefore(9_999)).isEqualTo(new TimestampAndOffset(3_000, 20));

        // When
        index.truncateTo(10);

        // Then
        assertThat(index.entries()).isEqualTo(1);
        assertThat(index.lookupBefore(9_999)).isEqualTo(new TimestampAndOffset(1_000, 0));
        index.close();
    }
}
