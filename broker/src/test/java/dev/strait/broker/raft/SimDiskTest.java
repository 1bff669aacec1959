package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fake disk's own contract: what a crash keeps and what it loses. */
class SimDiskTest {

    private static LogEntry entry(int epoch, long offset) {
        return new LogEntry(epoch, offset, LogEntry.Kind.DATA, new byte[] {(byte) offset});
    }

    @Test
    void crashKeepsFlushedEntriesAndAPrefixOfTheRest() {
        for (long seed = 0; seed < 50; seed++) {
            SimDisk disk = new SimDisk(false);
            disk.append(entry(1, 0));
            disk.append(entry(1, 1));
            disk.flush();
            disk.append(entry(1, 2));
            disk.append(entry(1, 3));
            disk.crash(new Random(seed));
            assertThat(disk.endOffset()).isBetween(2L, 4L);
            for (long offset = 0; offset < disk.endOffset(); offset++) {
                assertThat(disk.entry(offset)).isEqualTo(entry(1, offset));
            }
        }
    }

    @Test
    void unflushedTruncationIsUndoneByACrash() {
        SimDisk disk = new SimDisk(false);
        disk.append(entry(1, 0));
        disk.append(entry(1, 1));
        disk.flush();
        disk.truncateTo(1);
        disk.append(entry(2, 1));
        disk.crash(new Random(1));
        assertThat(disk.endOffset()).isEqualTo(2);
        assertThat(disk.entry(1)).isEqualTo(entry(1, 1));
    }

    @Test
    void electionStateIsDurableOnWrite() {
        SimDisk disk = new SimDisk(false);
        disk.writeElectionState(new ElectionState(5, 2, -1));
        disk.crash(new Random(1));
        assertThat(disk.electionState()).isEqualTo(new ElectionState(5, 2, -1));
    }

    @Test
    void aSnapshotTruncatesTheLogAndMakesTheKeptSuffixDurable() {
        // Given
        SimDisk disk = new SimDisk(false);
        for (long offset = 0; offset < 6; offset++) {
            disk.append(entry(1, offset));
        }
        // When: a snapshot of 0..3, the entries 4 and 5 never flushed
        disk.installSnapshot(new OffsetAndEpoch(4, 1), new byte[] {4});
        disk.crash(new Random(1));
        // Then
        assertThat(disk.startOffset()).isEqualTo(4);
        assertThat(disk.endOffset()).isEqualTo(6);
        assertThat(disk.readSnapshot(new OffsetAndEpoch(4, 1), 0, 10)).hasValue(new byte[] {4});
    }

    @Test
    void aSnapshotTheLogDoesNotContinueEmptiesIt() {
        SimDisk disk = new SimDisk(false);
        disk.append(entry(1, 0));
        disk.append(entry(1, 1));
        disk.flush();
        disk.installSnapshot(new OffsetAndEpoch(2, 2), new byte[] {1});
        assertThat(disk.startOffset()).isEqualTo(2);
        assertThat(disk.endOffset()).isEqualTo(2);
    }

    @Test
    void powerLossWhileWritingTheSnapshotKeepsTheOldState() {
        // Given
        SimDisk disk = new SimDisk(false);
        for (long offset = 0; offset < 4; offset++) {
            disk.append(entry(1, offset));
        }
        disk.flush();
        disk.armSnapshotCrash(SimDisk.SnapshotCrash.TORN_TEMP_FILE);
        // When
        assertThatThrownBy(() -> disk.installSnapshot(new OffsetAndEpoch(3, 1), new byte[] {3}))
                .isInstanceOf(SimDisk.PowerLoss.class);
        disk.crash(new Random(1));
        // Then
        assertThat(disk.latestSnapshot()).isEmpty();
        assertThat(disk.startOffset()).isZero();
        assertThat(disk.endOffset()).isEqualTo(4);
    }

    @Test
    void powerLossBeforeTheLogRewriteIsFinishedByRecovery() {
        // Given
        SimDisk disk = new SimDisk(false);
        for (long offset = 0; offset < 4; offset++) {
            disk.append(entry(1, offset));
        }
        disk.flush();
        disk.armSnapshotCrash(SimDisk.SnapshotCrash.BEFORE_LOG_REWRITE);
        // When
        assertThatThrownBy(() -> disk.installSnapshot(new OffsetAndEpoch(3, 1), new byte[] {3}))
                .isInstanceOf(SimDisk.PowerLoss.class);
        assertThat(disk.startOffset()).as("not yet rewritten").isZero();
        disk.crash(new Random(1));
        // Then
        assertThat(disk.latestSnapshot()).map(SnapshotInfo::id).hasValue(new OffsetAndEpoch(3, 1));
        assertThat(disk.startOffset()).isEqualTo(3);
        assertThat(disk.entry(3)).isEqualTo(entry(1, 3));
    }

    @Test
    void powerLossKeepsTheLatestHighWatermarkCheckpointTheOneBeforeOrNone() {
        java.util.Set<Long> seen = new java.util.TreeSet<>();
        for (long seed = 0; seed < 30; seed++) {
            SimDisk disk = new SimDisk(false);
            disk.writeHighWatermark(3);
            disk.writeHighWatermark(7);
            disk.crash(new Random(seed));
            seen.add(disk.highWatermark());
        }
        assertThat(seen).containsExactly(0L, 3L, 7L);
    }

    @Test
    void lyingDiskForgetsEvenFlushedEntries() {
        SimDisk disk = new SimDisk(true);
        disk.append(entry(1, 0));
        disk.flush();
        disk.truncateTo(0);
        disk.crash(new Random(1));
        assertThat(disk.endOffset()).isZero();
    }
}
