package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

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
    void lyingDiskForgetsEvenFlushedEntries() {
        SimDisk disk = new SimDisk(true);
        disk.append(entry(1, 0));
        disk.flush();
        disk.truncateTo(0);
        disk.crash(new Random(1));
        assertThat(disk.endOffset()).isZero();
    }
}
