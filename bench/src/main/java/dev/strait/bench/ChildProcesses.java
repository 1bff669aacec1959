package dev.strait.bench;

import dev.strait.testkit.KafkaCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Child JVMs of a bench run. Every process started here is remembered until it ends, and {@link #killAll} (run by
 * the bench's shutdown hook) kills what is left and refuses new starts, so an interrupted bench leaves no broker or
 * client behind. Thread-safe: {@code start} and {@code killAll} synchronize on this object.
 */
final class ChildProcesses {
    private final Set<Process> live = ConcurrentHashMap.newKeySet();
    /** Set by {@link #killAll}: from then on nothing new is started, so a bench that is shutting down stays down. */
    private boolean closed;

    /** What a child printed (stdout and stderr merged), and how long it ran. */
    record Completed(int exitCode, List<String> lines, double seconds, Path log) {}

    synchronized boolean isClosed() {
        return closed;
    }

    /** Starts a long-running child whose merged output goes to {@code log}. */
    synchronized Process start(List<String> cmd, Path log) {
        if (closed) {
            throw new IllegalStateException("the bench is shutting down; not starting " + cmd.get(cmd.size() - 1));
        }
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            live.add(p);
            p.onExit().thenRun(() -> live.remove(p));
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + cmd.get(cmd.size() - 1), e);
        }
    }

    /**
     * Runs a child to completion. Past {@code timeout} it is killed and this throws, naming the log, so one stuck
     * run cannot hang the bench.
     */
    Completed run(List<String> cmd, Path log, Duration timeout) throws InterruptedException {
        return run(cmd, log, timeout, () -> {});
    }

    /** {@link #run(List, Path, Duration)}, calling {@code whileWaiting} about every second (a progress line's clock). */
    Completed run(List<String> cmd, Path log, Duration timeout, Runnable whileWaiting) throws InterruptedException {
        long startNanos = System.nanoTime();
        Process p = start(cmd, log);
        long deadline = startNanos + timeout.toNanos();
        boolean exited = false;
        while (!exited && System.nanoTime() < deadline) {
            exited = p.waitFor(
                    Math.min(1000, Math.max(1, (deadline - System.nanoTime()) / 1_000_000)), TimeUnit.MILLISECONDS);
            whileWaiting.run();
        }
        if (!exited) {
            stop(p, Duration.ZERO);
            throw new IllegalStateException(
                    "timed out after " + timeout.toSeconds() + " s and killed; log tail:\n" + tail(log, 5));
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        try {
            return new Completed(p.exitValue(), Files.readAllLines(log, StandardCharsets.UTF_8), seconds, log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Runs {@link #killAllAndDelete} as the JVM exits: a shutdown hook runs on a normal end, on {@code System.exit}
     * and on Ctrl-C or SIGTERM alike, so none of those leaves a broker running.
     */
    void killAllAndDeleteOnExit(Path work, boolean keepLogs) {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> killAllAndDelete(work, keepLogs), "bench-cleanup"));
    }

    /** The bench's end: kills every child, then deletes {@code work} unless its logs are kept (then names it). */
    void killAllAndDelete(Path work, boolean keepLogs) {
        killAll();
        if (!keepLogs) {
            KafkaCluster.deleteRecursively(work);
        } else {
            System.err.println("logs kept in " + work);
        }
    }

    /** SIGTERM, then SIGKILL after {@code grace}; waits for the process to be gone. */
    static void stop(Process p, Duration grace) {
        try {
            if (!grace.isZero()) {
                p.destroy();
                if (p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                    return;
                }
            }
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Kills every child still running (descendants first). For the shutdown hook. */
    synchronized void killAll() {
        closed = true;
        for (Process p : new ArrayList<>(live)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** The last {@code n} lines of a log, for error messages. */
    static String tail(Path log, int n) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }
}
