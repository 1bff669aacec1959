package dev.strait.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The mirror as a separate JVM ({@code bin/mirror-maker}'s main class on the test class path), so a test
 * can SIGKILL it, SIGTERM it and read its exit code and log.
 */
final class MirrorProcess implements AutoCloseable {
    /** C1 only and the serial collector: a small JVM's start-up and run cost less CPU (the parent pom says why). */
    private static final List<String> LEAN_JVM = List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private final Process process;
    private final Path log;

    private MirrorProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** The command line of a lean child JVM with the given heap option, to which a test adds the rest. */
    static List<String> java(String heap) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add(heap);
        cmd.addAll(LEAN_JVM);
        return cmd;
    }

    static MirrorProcess start(Path dir, String name, List<String> args) {
        try {
            Files.createDirectories(dir);
            Path log = dir.resolve(name + ".log");
            List<String> cmd = java("-Xmx512m");
            cmd.add("-cp");
            cmd.add(classPath());
            cmd.add(MirrorMakerMain.class.getName());
            cmd.addAll(args);
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            return new MirrorProcess(p, log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String classPath() {
        String cp = System.getProperty("surefire.test.class.path");
        return cp != null && !cp.isBlank() ? cp : System.getProperty("java.class.path");
    }

    void kill9() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, then the exit code (or -1 if it did not exit in time). */
    int terminate(long timeoutSeconds) throws InterruptedException {
        process.destroy();
        return waitFor(timeoutSeconds);
    }

    int waitFor(long timeoutSeconds) throws InterruptedException {
        return process.waitFor(timeoutSeconds, TimeUnit.SECONDS) ? process.exitValue() : -1;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill9();
        }
    }

    /** What {@code bin/strait} printed and returned. */
    record Run(int code, String out, String err) {}

    /**
     * {@code bin/strait} in its own JVM with the production logging set-up (logs on stderr) and progress drawn as on a
     * terminal, so that stdout must still hold the result alone; its output files go to {@code dir}.
     */
    static Run strait(Path dir, String... args) throws Exception {
        List<String> cmd = java("-Xmx256m");
        cmd.addAll(List.of(
                "-Dlogback.configurationFile="
                        + Path.of("target", "classes", "logback.xml").toAbsolutePath(),
                "-D" + dev.strait.mirror.progress.Terminal.PROPERTY + "=always",
                "-cp",
                classPath(),
                Strait.class.getName()));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("bin/strait " + String.join(" ", args) + " did not finish in 180 s");
        }
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }
}
