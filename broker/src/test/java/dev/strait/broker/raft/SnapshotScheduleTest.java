package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SnapshotScheduleTest {

    private static LogEntry data(long offset, int bytes) {
        return new LogEntry(1, offset, LogEntry.Kind.DATA, new byte[bytes]);
    }

    @Test
    void nothingIsDueUntilSomethingIsCommittedHoweverOldTheSnapshot() {
        SnapshotSchedule schedule = new SnapshotSchedule(RaftConfig.defaults().withSnapshots(10, 1_000));
        schedule.restart(new SimDisk(false), 0, 0);
        assertThat(schedule.due(1_000_000)).isFalse();
        // a leader change is committed too, but holds no state to snapshot
        schedule.onCommitted(LogEntry.leaderChange(1, 0, 1));
        assertThat(schedule.due(1_000_000)).isFalse();
        schedule.onCommitted(data(1, 1));
        assertThat(schedule.due(999)).isFalse();
        assertThat(schedule.due(1_000)).isTrue();
    }

    @Test
    void enoughCommittedBytesMakeASnapshotDueAtOnce() {
        SnapshotSchedule schedule = new SnapshotSchedule(RaftConfig.defaults().withSnapshots(10, 0));
        schedule.restart(new SimDisk(false), 0, 0);
        schedule.onCommitted(data(0, 6));
        assertThat(schedule.due(0)).isFalse();
        schedule.onCommitted(data(1, 4));
        assertThat(schedule.due(0)).isTrue();
    }

    @Test
    void withoutAnIntervalOnlyTheBytesTrigger() {
        SnapshotSchedule schedule = new SnapshotSchedule(RaftConfig.defaults().withSnapshots(10, 0));
        schedule.restart(new SimDisk(false), 0, 0);
        schedule.onCommitted(data(0, 1));
        assertThat(schedule.due(Long.MAX_VALUE / 2)).isFalse();
    }

    @Test
    void aRestartCountsWhatIsCommittedAfterTheLogStartAndRestartsTheClock() {
        SimDisk disk = new SimDisk(false);
        disk.append(data(0, 5));
        disk.append(LogEntry.leaderChange(1, 1, 1));
        disk.append(data(2, 5));
        disk.append(data(3, 5));
        disk.flush();
        SnapshotSchedule schedule = new SnapshotSchedule(RaftConfig.defaults().withSnapshots(10, 1_000));
        // committed below 3: two data entries of 5 bytes, the entry at 3 is not committed yet
        schedule.restart(disk, 3, 500);
        assertThat(schedule.due(500)).isTrue();
        disk.installSnapshot(new OffsetAndEpoch(2, 1), new byte[] {1});
        // after a snapshot of 0..1 only the entry at 2 counts: 5 bytes, below the trigger, and the clock restarts
        schedule.restart(disk, 3, 2_000);
        assertThat(schedule.due(2_999)).isFalse();
        assertThat(schedule.due(3_000)).isTrue();
    }
}
