package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.progress.Terminal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code bin/bench sync}'s in-process part, tiny: its progress goes to stderr only when that is a terminal (here:
 * forced with {@code -Dstrait.progress=always}; the test JVM's own stderr is a pipe to Maven), and stdout holds the
 * results alone either way.
 */
class SyncBenchProgressTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
    private PrintStream oldOut;
    private PrintStream oldErr;
    private String oldMode;

    @BeforeEach
    void capture() {
        oldOut = System.out;
        oldErr = System.err;
        oldMode = System.getProperty(Terminal.PROPERTY);
        System.setOut(new PrintStream(outBytes, true, StandardCharsets.UTF_8));
        System.setErr(new PrintStream(errBytes, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void restore() {
        System.setOut(oldOut);
        System.setErr(oldErr);
        if (oldMode == null) {
            System.clearProperty(Terminal.PROPERTY);
        } else {
            System.setProperty(Terminal.PROPERTY, oldMode);
        }
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void noProgressWhenStderrIsNoTerminal() {
        System.clearProperty(Terminal.PROPERTY);

        SyncBench.translate(5, 4, 10, 1, 3);

        assertThat(err()).isEmpty();
        assertThat(out()).contains("round  3:").doesNotContain("\r");
    }

    @Test
    void progressOfEachPhaseOnStderrOnATerminalAndTheResultsStillAloneOnStdout() {
        System.setProperty(Terminal.PROPERTY, "always");

        SyncBench.translate(5, 4, 10, 1, 3);

        assertThat(err())
                .contains("\rbench sync: building the offset map [")
                .contains("4/4 partitions")
                .contains("\rbench sync: translate [")
                .contains("3/3  done")
                .endsWith(System.lineSeparator());
        assertThat(out())
                .doesNotContain("\r")
                .doesNotContain("bench sync: translate")
                .contains("  round  1: 20 partition offsets translated")
                .contains("  round  3: 20 partition offsets translated")
                .contains("translate: median");
    }
}
