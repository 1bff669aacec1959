package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code strait failback --mirror-topics} refuses bad input with exit code 2 and one line saying what to do, before it
 * reaches a cluster (the configs point at ports nothing listens on).
 */
class FailbackMirrorTopicsArgsTest {
    @TempDir
    Path dir;

    record Run(int code, String err) {}

    @Test
    void badInputIsOneLineAndExitCodeTwo() throws IOException {
        Path plain = Files.writeString(
                dir.resolve("f.properties"),
                "source.bootstrap.servers=127.0.0.1:1\ntarget.bootstrap.servers=127.0.0.1:2\n");
        Path secured = Files.writeString(
                dir.resolve("s.properties"),
                "source.bootstrap.servers=127.0.0.1:1\ntarget.bootstrap.servers=127.0.0.1:2\n"
                        + "target.security.protocol=SASL_SSL\n");
        String c = plain.toString();

        assertRefused(run("--config", c, "--mirror-topics", "x", "--groups", "y"), "one of them");
        assertRefused(run("--config", c), "one of them");
        assertRefused(run("--config", c, "--mirror-topics", "("), "--mirror-topics is not a regular expression");
        assertRefused(run("--config", c, "--mirror-topics", "x", "--execute", "--force"), "apply to --groups");
        assertRefused(run("--config", c, "--mirror-topics", "x", "--mirror-link", "dc 1"), "--mirror-link is a link");
        assertRefused(run("--config", c, "--groups", "g", "--mirror-link", "dc1"), "--mirror-topics only");
        assertRefused(
                run("--config", secured.toString(), "--mirror-topics", "x"),
                "over SASL_SSL, and the source's brokers reach bootstrap servers over PLAINTEXT only");
    }

    private static void assertRefused(Run run, String says) {
        assertThat(run.code()).as(run.err()).isEqualTo(Cli.BAD_INPUT);
        assertThat(run.err().strip()).contains(says).doesNotContain("\n");
    }

    private static Run run(String... args) {
        String[] all = new String[args.length + 1];
        all[0] = "failback";
        System.arraycopy(args, 0, all, 1, args.length);
        PrintStream before = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            int code = Cli.execute(new Strait(), all);
            return new Run(code, err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(before);
        }
    }
}
