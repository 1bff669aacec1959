package dev.strait.mirror.progress;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.ManualTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressTest {
    private final ManualTime time = new ManualTime();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream err = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private Progress progress(String unit, boolean on) {
        return new Progress("failback: copying back", unit, err, on, time, 250, 1000);
    }

    private String drawn() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void drawsTheCountTheRateAndTheTimeLeftInPlace() {
        Progress p = progress("records", true).start(10_000);
        time.advance(2000);
        p.update(5000);

        assertThat(drawn())
                .isEqualTo(
                        "\rfailback: copying back [##########----------]  5,000/10,000 records  50%  2,500/s  ETA 0:02");
    }

    @Test
    void drawsNothingBeforeTheQuietTimeAndAtMostOnceAnInterval() {
        Progress p = progress("records", true).start(100);
        time.advance(999);
        p.update(10);
        assertThat(drawn()).isEmpty();

        time.advance(1);
        p.update(20);
        int draws = drawn().split("\r", -1).length - 1;
        time.advance(249);
        p.update(30);
        p.update(40);
        assertThat(drawn().split("\r", -1).length - 1).isEqualTo(draws).isEqualTo(1);

        time.advance(1);
        p.update(50);
        assertThat(drawn())
                .endsWith("50/100 records  50%  40/s  ETA 0:02")
                .contains("\r")
                .doesNotContain("\n");
        assertThat(drawn().split("\r", -1).length - 1).isEqualTo(2);
    }

    @Test
    void aShorterLineBlanksOutTheLongerOneBeforeIt() {
        Progress p = new Progress("demo", null, err, true, time, 250, 0);
        p.start(3);
        time.advance(1000);
        p.update(1, "starting the source and target clusters");
        int first = drawn().length() - 1;
        time.advance(1000);
        p.update(2, "topics");

        String second = drawn().substring(first + 1);
        assertThat(second).startsWith("\rdemo [#############-------]  2/3  topics  0:02");
        assertThat(second.length() - 1).isEqualTo(first);
        assertThat(second).endsWith(" ");
    }

    @Test
    void finishEndsTheLineWithTheTotalTime() {
        Progress p = progress("records", true).start(10_000);
        time.advance(1500);
        p.update(6000);
        time.advance(2500);
        p.update(10_000);
        p.finish();
        p.finish();

        String[] draws = drawn().split("\r");
        // The last draw ends the line; spaces blank out the longer "ETA" line before it.
        assertThat(draws[draws.length - 1])
                .matches(java.util.regex.Pattern.quote(
                                "failback: copying back [####################]  10,000/10,000 records  100%  2,500/s  in 0:04")
                        + " *" + System.lineSeparator());
        assertThat(drawn()).endsWith(System.lineSeparator()).containsOnlyOnce(System.lineSeparator());
    }

    @Test
    void clearWipesTheLineForOtherOutputAndTheNextUpdateDrawsItAgainAtOnce() {
        Progress p = new Progress("demo", null, err, true, time, 250, 0);
        p.start(4);
        p.update(1, "clusters");
        String line = drawn().substring(1);
        p.clear();
        assertThat(drawn()).endsWith(line + "\r" + " ".repeat(line.length()) + "\r");
        int before = drawn().length();

        p.update(2, "topics");

        assertThat(drawn().substring(before)).startsWith("\rdemo [##########----------]  2/4  topics  0:00");
    }

    @Test
    void quickWorkPrintsNothingNotEvenAtTheEnd() {
        Progress p = progress("groups", true).start(3);
        time.advance(300);
        p.update(3);
        p.finish();

        assertThat(drawn()).isEmpty();
    }

    @Test
    void offPrintsNothingHoweverLongTheWork() {
        Progress p = progress("records", false).start(10);
        for (int i = 1; i <= 10; i++) {
            time.advance(5000);
            p.update(i);
        }
        p.finish();

        assertThat(drawn()).isEmpty();
    }

    @Test
    void jsonOutputTurnsProgressOffEvenWhenForced() {
        String old = System.getProperty(Terminal.PROPERTY);
        PrintStream oldErr = System.err;
        System.setProperty(Terminal.PROPERTY, "always");
        System.setErr(err);
        try {
            Progress json = Progress.onStderr("failover", "groups", true, time).start(1);
            time.advance(5000);
            json.update(1);
            json.finish();
            assertThat(drawn()).isEmpty();

            Progress text = Progress.onStderr("failover", "groups", false, time).start(1);
            text.update(1);
            text.finish();
            assertThat(drawn()).startsWith("\rfailover [####################]  1/1 groups  100%");
        } finally {
            System.setErr(oldErr);
            if (old == null) {
                System.clearProperty(Terminal.PROPERTY);
            } else {
                System.setProperty(Terminal.PROPERTY, old);
            }
        }
    }

    @Test
    void anUnknownTotalShowsTheCountAndTheRate() {
        Progress p = progress("records", true).start(-1);
        time.advance(4000);
        p.update(8000);

        assertThat(drawn()).isEqualTo("\rfailback: copying back  8,000 records  2,000/s");
    }

    @Test
    void noRateYetSaysTheTimeLeftIsUnknown() {
        Progress p = progress("records", true).start(100);
        time.advance(1000);
        p.update(0);

        assertThat(drawn()).endsWith("0/100 records  0%  0/s  ETA --");
    }

    @Test
    void evenStepsShowTheTimeLeftFromTheAverageStep() {
        Progress p = new Progress("bench nemesis", null, err, true, time, 250, 0).evenSteps();
        p.start(4);
        p.update(0, "run 1: strait");
        assertThat(drawn()).isEqualTo("\rbench nemesis [--------------------]  0/4  run 1: strait  0:00  ETA --");

        time.advance(90_000);
        p.update(1, "run 2: strait");
        // One run took 1:30, three are left.
        assertThat(drawn()).endsWith("\rbench nemesis [#####---------------]  1/4  run 2: strait  1:30  ETA 4:30");

        time.advance(270_000);
        p.update(4, "done");
        p.finish();
        assertThat(drawn()).endsWith("  4/4  done  6:00" + System.lineSeparator());
    }

    @Test
    void stepsWithoutEvenStepsShowNoTimeLeft() {
        Progress p = new Progress("demo", null, err, true, time, 250, 0);
        p.start(4);
        time.advance(2000);
        p.update(1, "topics");

        assertThat(drawn()).doesNotContain("ETA");
    }

    @Test
    void linesPrintWholeLinesAtMostOnceAnIntervalForStreamsOtherOutputSharesWith() {
        Progress p = new Progress("bench nemesis", null, err, true, time, 250, 0)
                .evenSteps()
                .lines();
        p.start(2);
        p.update(0, "run 1");
        time.advance(100);
        p.update(0, "run 1 again");
        time.advance(60_000);
        p.update(1, "run 2");
        time.advance(60_000);
        p.update(2, "done");
        p.finish();

        String nl = System.lineSeparator();
        assertThat(drawn())
                .doesNotContain("\r")
                .isEqualTo("bench nemesis [--------------------]  0/2  run 1  0:00  ETA --" + nl
                        + "bench nemesis [##########----------]  1/2  run 2  1:00  ETA 1:00" + nl
                        + "bench nemesis [####################]  2/2  done  2:00" + nl);
    }

    @Test
    void printAboveWipesTheLinePrintsTheTextAndDrawsTheLineAgain() {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        Progress p = new Progress("bench cluster", null, err, true, time, 250, 0);
        p.start(3);
        p.update(1, "Kafka");
        String line = drawn().substring(1);

        p.printAbove(out, "== Kafka ==");

        assertThat(outBytes.toString(StandardCharsets.UTF_8)).isEqualTo("== Kafka ==" + System.lineSeparator());
        assertThat(drawn()).isEqualTo("\r" + line + "\r" + " ".repeat(line.length()) + "\r" + "\r" + line);
    }

    @Test
    void printAboveOnlyPrintsWhenNothingIsDrawn() {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
        Progress off = progress("records", false).start(10);
        off.printAbove(out, "a result");
        Progress lines = new Progress("l", null, err, true, time, 250, 0).lines();
        lines.start(2);
        lines.printAbove(out, "another");

        assertThat(outBytes.toString(StandardCharsets.UTF_8))
                .isEqualTo("a result" + System.lineSeparator() + "another" + System.lineSeparator());
        assertThat(drawn()).isEmpty();
    }

    @Test
    void tickDrawsTheSameStepWithTheClockGoneOn() {
        Progress p = new Progress("bench broker", null, err, true, time, 250, 0);
        p.start(5);
        p.update(2, "produce acks=all");
        time.advance(100);
        p.tick();
        int draws = drawn().split("\r", -1).length - 1;
        time.advance(65_000);
        p.tick();

        assertThat(draws).isEqualTo(1);
        assertThat(drawn()).endsWith("\rbench broker [########------------]  2/5  produce acks=all  1:05");
    }

    @Test
    void durationsPastAnHourShowTheHours() {
        assertThat(Progress.duration(59)).isEqualTo("0:59");
        assertThat(Progress.duration(3725)).isEqualTo("1:02:05");
    }

    @Test
    void terminalDevicesAreTheTerminalsNotFilesOrPipes() {
        assertThat(Terminal.isTerminalDevice("/dev/pts/3")).isTrue();
        assertThat(Terminal.isTerminalDevice("/dev/tty1")).isTrue();
        assertThat(Terminal.isTerminalDevice("pipe:[123456]")).isFalse();
        assertThat(Terminal.isTerminalDevice("/tmp/err.txt")).isFalse();
        assertThat(Terminal.isTerminalDevice("/dev/null")).isFalse();
    }

    @Test
    void anUnknownModeSaysWhichAreKnown() {
        String old = System.getProperty(Terminal.PROPERTY);
        System.setProperty(Terminal.PROPERTY, "sometimes");
        try {
            org.assertj.core.api.Assertions.assertThatThrownBy(Terminal::stderrShowsProgress)
                    .hasMessageContaining("auto, always or never");
        } finally {
            if (old == null) {
                System.clearProperty(Terminal.PROPERTY);
            } else {
                System.setProperty(Terminal.PROPERTY, old);
            }
        }
    }
}
