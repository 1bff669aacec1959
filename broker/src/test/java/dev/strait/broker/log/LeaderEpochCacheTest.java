package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LeaderEpochCacheTest {

    @TempDir
    Path dir;

    private LeaderEpochCache cacheWith(int[] epochs, long[] startOffsets) throws IOException {
        LeaderEpochCache cache = LeaderEpochCache.load(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT));
        for (int i = 0; i < epochs.length; i++) {
            cache.assign(epochs[i], startOffsets[i]);
        }
        return cache;
    }

    @Test
    void entriesSurviveAReload() throws Exception {
        // Given
        cacheWith(new int[] {1, 3, 4}, new long[] {0, 10, 10});

        // When
        LeaderEpochCache reloaded = LeaderEpochCache.load(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT));

        // Then
        assertThat(reloaded.entries())
                .containsExactly(new EpochEntry(1, 0), new EpochEntry(3, 10), new EpochEntry(4, 10));
        assertThat(Files.readAllLines(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT)))
                .containsExactly("0", "3", "1 0", "3 10", "4 10");
        assertThat(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT + ".tmp")).doesNotExist();
    }

    @Test
    void assignRejectsLowerEpochsAndLowerOffsets() throws Exception {
        LeaderEpochCache cache = cacheWith(new int[] {2}, new long[] {5});

        assertThat(cache.assign(2, 9)).isFalse();
        assertThatThrownBy(() -> cache.assign(1, 9)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> cache.assign(3, 4)).isInstanceOf(IllegalArgumentException.class);
        assertThat(cache.entries()).containsExactly(new EpochEntry(2, 5));
    }

    @Test
    void endOffsetForAnswersOffsetForLeaderEpoch() throws Exception {
        LeaderEpochCache cache = cacheWith(new int[] {2, 4, 7}, new long[] {10, 20, 35});
        long logEndOffset = 50;

        // the latest epoch ends at the log end offset
        assertThat(cache.endOffsetFor(7, logEndOffset)).isEqualTo(new EpochEndOffset(7, 50));
        // a known older epoch ends where the next one starts
        assertThat(cache.endOffsetFor(2, logEndOffset)).isEqualTo(new EpochEndOffset(2, 20));
        assertThat(cache.endOffsetFor(4, logEndOffset)).isEqualTo(new EpochEndOffset(4, 35));
        // an unknown epoch between known ones: the floor epoch, ending where the next higher starts
        assertThat(cache.endOffsetFor(3, logEndOffset)).isEqualTo(new EpochEndOffset(2, 20));
        assertThat(cache.endOffsetFor(6, logEndOffset)).isEqualTo(new EpochEndOffset(4, 35));
        // above the latest, or undefined (below the first: see the next test)
        assertThat(cache.endOffsetFor(8, logEndOffset)).isEqualTo(EpochEndOffset.UNDEFINED);
        assertThat(cache.endOffsetFor(-1, logEndOffset)).isEqualTo(EpochEndOffset.UNDEFINED);
    }

    @Test
    void anEpochBelowTheFirstKnownOneEndsWhereTheFirstKnownEpochStarts() throws Exception {
        // Given: the epochs before 2 were removed with the log's head (or never recorded)
        LeaderEpochCache cache = cacheWith(new int[] {2, 4, 7}, new long[] {10, 20, 35});

        // When / Then: as Kafka's LeaderEpochFileCache.endOffsetFor, the requested epoch and the first known start,
        // so that a follower still in epoch 1 truncates to where the leader's log has epochs, not to its own HW
        assertThat(cache.endOffsetFor(1, 50)).isEqualTo(new EpochEndOffset(1, 10));
        assertThat(cache.endOffsetFor(0, 50)).isEqualTo(new EpochEndOffset(0, 10));
    }

    @Test
    void anEmptyCacheAnswersUndefined() throws Exception {
        LeaderEpochCache cache = cacheWith(new int[0], new long[0]);

        assertThat(cache.endOffsetFor(0, 10).isUndefined()).isTrue();
        assertThat(cache.latestEpoch()).isEqualTo(LeaderEpochCache.UNDEFINED_EPOCH);
    }

    @Test
    void truncateFromEndDropsEpochsStartingAtOrAfterTheOffset() throws Exception {
        LeaderEpochCache cache = cacheWith(new int[] {1, 2, 3}, new long[] {0, 10, 20});

        cache.truncateFromEnd(10);

        assertThat(cache.entries()).containsExactly(new EpochEntry(1, 0));
        assertThat(LeaderEpochCache.load(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT))
                        .entries())
                .containsExactly(new EpochEntry(1, 0));
    }

    @Test
    void truncateFromStartMovesTheContainingEpochUp() throws Exception {
        LeaderEpochCache cache = cacheWith(new int[] {1, 2, 3}, new long[] {0, 10, 20});

        cache.truncateFromStart(15);

        assertThat(cache.entries()).containsExactly(new EpochEntry(2, 15), new EpochEntry(3, 20));
        cache.truncateFromStart(20);
        assertThat(cache.entries()).containsExactly(new EpochEntry(3, 20));
        cache.truncateFromStart(5);
        assertThat(cache.entries()).containsExactly(new EpochEntry(3, 20));
    }

    @Test
    void aMalformedCheckpointIsReportedNotGuessed() throws Exception {
        Files.write(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT), List.of("0", "2", "1 0"));

        assertThatThrownBy(() -> LeaderEpochCache.load(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("declares 2 entries");
    }
}
