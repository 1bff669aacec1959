package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * Runs one of Apache Kafka's command-line tools as a child JVM with the test class path (the tools end with
 * System.exit), bounded to 60 s, and returns what it printed.
 */
final class KafkaTool {
    private KafkaTool() {}

    record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exitCode + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
        }
    }

    static Result run(Path dir, String mainClass, Path stdin, String... args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new ArrayList<>(List.of(
                java.toString(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "stdout", ".txt");
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        if (stdin != null) {
            builder.redirectInput(stdin.toFile());
        } else {
            Path empty = dir.resolve("empty");
            if (!Files.exists(empty)) {
                Files.createFile(empty);
            }
            builder.redirectInput(ProcessBuilder.Redirect.from(empty.toFile()));
        }
        Process process = builder.start();
        try {
            boolean exited = process.waitFor(60, TimeUnit.SECONDS);
            assertThat(exited)
                    .as(
                            "%s %s did not exit within 60 s; stdout: %s",
                            mainClass, String.join(" ", args), Files.readString(out, StandardCharsets.UTF_8))
                    .isTrue();
            return new Result(
                    process.exitValue(),
                    Files.readString(out, StandardCharsets.UTF_8),
                    Files.readAllLines(err, StandardCharsets.UTF_8).stream().collect(Collectors.joining("\n")));
        } finally {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
