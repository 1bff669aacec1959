package dev.strait.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class TimeTest {

    @Test
    void manualTimeMovesOnlyWhenTold() {
        ManualTime time = new ManualTime(1_000);
        assertThat(time.milliseconds()).isEqualTo(1_000);
        time.sleep(250);
        time.advance(50);
        assertThat(time.milliseconds()).isEqualTo(1_300);
        assertThat(time.hiResClockMs()).isEqualTo(1_300);
        assertThatThrownBy(() -> time.advance(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aWallClockStepLeavesTheMonotonicClockAlone() {
        ManualTime time = new ManualTime(10_000);
        time.setWallClockMs(4_000); // NTP steps the clock back 6 s
        assertThat(time.milliseconds()).isEqualTo(4_000);
        assertThat(time.hiResClockMs()).isEqualTo(10_000);
        time.advance(10);
        assertThat(time.milliseconds()).isEqualTo(4_010);
        assertThat(time.hiResClockMs()).isEqualTo(10_010);
    }

    @Test
    void manualWaitMovesTheClockToTheDeadlineOrUntilDone() throws Exception {
        ManualTime time = new ManualTime(0);
        time.waitObject(new Object(), () -> false, 500);
        assertThat(time.milliseconds()).isEqualTo(500);
        time.waitObject(new Object(), () -> time.milliseconds() >= 520, 10_000);
        assertThat(time.milliseconds()).isEqualTo(520);
    }

    @Test
    void aLambdaClockWaitsOnTheMonitorUntilDone() throws Exception {
        long[] now = {0};
        Time frozen = () -> now[0];
        Object monitor = new Object();
        AtomicBoolean done = new AtomicBoolean();
        Thread notifier = new Thread(() -> {
            synchronized (monitor) {
                done.set(true);
                monitor.notifyAll();
            }
        });
        notifier.start();
        frozen.waitObject(monitor, done::get, 1);
        notifier.join();
        assertThat(done).isTrue();
        frozen.sleep(1_000); // a clock that only tells time does not sleep
    }

    @Test
    void systemWaitReturnsAtTheDeadlineWithoutThrowing() throws Exception {
        long deadline = Time.SYSTEM.milliseconds() + 20;
        Time.SYSTEM.waitObject(new Object(), () -> false, deadline);
        assertThat(Time.SYSTEM.milliseconds()).isGreaterThanOrEqualTo(deadline);
    }
}
