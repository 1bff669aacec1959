package dev.strait.testkit.nemesis;

import dev.strait.testkit.Docker;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;

/**
 * A disk that can lose power: a FUSE file system ({@code lazyfs.py}, Python 3 with Debian's {@code python3-fusepy})
 * mounted over a backing directory, which keeps every write that was neither fsynced nor older than the write-back
 * age in memory and drops all of them on {@link #loseUnsyncedWrites()}. What it keeps, when it writes back, and how
 * mmap and renames behave is documented in the script. Namespace operations (create, rename, unlink) are durable at
 * once; only file contents are lazy.
 *
 * <p>The daemon is a child process driven over its stdin and stdout, one command and one answer per line; it
 * unmounts itself when its stdin closes, so a harness that dies does not leave the mount behind for long.
 */
public final class LazyDisk implements AutoCloseable {
    /** The kernel's dirty_expire_centisecs (30 s): unsynced pages older than this are written back. */
    public static final Duration DEFAULT_WRITE_BACK_AGE = Duration.ofSeconds(30);

    private static final String SCRIPT = "lazyfs.py";
    private static final Duration ANSWER_TIMEOUT = Duration.ofSeconds(30);
    private static final Pattern LOST = Pattern.compile("lost (\\d+) bytes in (\\d+) files");
    private static final Pattern PENDING = Pattern.compile("pending (\\d+) bytes in (\\d+) files");

    private final Path backing;
    private final Path mountPoint;
    private final Process process;
    private final OutputStream commands;
    private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();

    /** What a loss or a stats query found: unsynced bytes and the files they belonged to. */
    public record Unsynced(long bytes, int files) {}

    private LazyDisk(Path backing, Path mountPoint, Process process) {
        this.backing = backing;
        this.mountPoint = mountPoint;
        this.process = process;
        this.commands = process.getOutputStream();
        Thread reader = new Thread(() -> readAnswers(process.getInputStream()), "lazy-disk-" + mountPoint);
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Why a lazy disk cannot run here, or empty: it needs {@code /dev/fuse}, root (to mount), Python 3 and the fusepy
     * module ({@code apt-get install python3-fusepy fuse3}).
     */
    public static Optional<String> unavailability() {
        if (!Files.exists(Path.of("/dev/fuse"))) {
            return Optional.of("/dev/fuse is missing (a container needs --device /dev/fuse --cap-add SYS_ADMIN)");
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            return Optional.of("mounting needs root, and this runs as " + System.getProperty("user.name"));
        }
        Shell.Result probe =
                Shell.tryRun(python(), "-c", "try:\n import fusepy\nexcept ImportError:\n import fuse\nfuse_ok = True");
        if (probe.exitCode() != 0) {
            return Optional.of(python() + " cannot import fusepy (apt-get install -y python3-fusepy fuse3): "
                    + probe.output().trim());
        }
        return Optional.empty();
    }

    /**
     * Returns when a lazy disk can run here; otherwise fails the calling test in CI (which installs what it needs),
     * or aborts it (JUnit reports it as skipped) elsewhere, with the reason either way.
     */
    public static void require() {
        Optional<String> why = unavailability();
        if (why.isEmpty()) {
            return;
        }
        if (Docker.inCi()) {
            throw new AssertionError("CI must run the lazy disk tests, but " + why.get()
                    + "; .ci/run installs python3-fusepy and fuse3");
        }
        Assumptions.abort("no lazy disk here: " + why.get());
    }

    /**
     * Mounts a lazy disk over {@code backing} (created if missing) at {@code mountPoint} (created if missing), and
     * waits until it serves; the daemon's diagnostics are appended to {@code log}.
     */
    public static LazyDisk mount(Path backing, Path mountPoint, Duration writeBackAge, Path log) {
        try {
            Files.createDirectories(backing);
            Files.createDirectories(mountPoint);
            Path script = backing.toAbsolutePath().resolveSibling(backing.getFileName() + "-" + SCRIPT);
            try (InputStream in = LazyDisk.class.getResourceAsStream(SCRIPT)) {
                if (in == null) {
                    throw new IllegalStateException(SCRIPT + " is missing from the testkit jar");
                }
                Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
            }
            List<String> cmd = new ArrayList<>(List.of(
                    python(),
                    script.toString(),
                    backing.toAbsolutePath().toString(),
                    mountPoint.toAbsolutePath().toString(),
                    "--write-back-age-ms",
                    Long.toString(writeBackAge.toMillis())));
            Process process = new ProcessBuilder(cmd)
                    .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            LazyDisk disk = new LazyDisk(backing, mountPoint, process);
            String ready = disk.answer();
            if (!"ready".equals(ready)) {
                disk.close();
                throw new IllegalStateException(
                        "the lazy disk at " + mountPoint + " did not start (answered " + ready + "); see " + log);
            }
            return disk;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot mount a lazy disk at " + mountPoint, e);
        }
    }

    /** The interpreter: $LAZYFS_PYTHON, else Debian's (a pyenv shim on the PATH would lack python3-fusepy). */
    static String python() {
        String configured = System.getenv("LAZYFS_PYTHON");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    public Path mountPoint() {
        return mountPoint;
    }

    public Path backing() {
        return backing;
    }

    /**
     * The power cut: pushes pages the kernel still holds dirty for this mount (a killed process's mmap) to the daemon
     * as plain writes ({@code sync -f}, which syncs no file here: the daemon implements no syncfs), then drops every
     * write not yet synced or written back. Call it only when no process writes to the disk any more (kill first).
     */
    public Unsynced loseUnsyncedWrites() {
        Shell.tryRun("sync", "-f", mountPoint.toString());
        return parse(LOST, command("lose"));
    }

    /**
     * Writes back everything pending now, as the kernel does once writes are older than the write-back age; returns
     * how many files had pending writes.
     */
    public int writeBackAll() {
        String answer = command("flush");
        Matcher m = Pattern.compile("flushed (\\d+) files").matcher(answer);
        if (!m.matches()) {
            throw new IllegalStateException("unexpected answer from the lazy disk: " + answer);
        }
        return Integer.parseInt(m.group(1));
    }

    /** What is unsynced right now. */
    public Unsynced unsynced() {
        return parse(PENDING, command("stats"));
    }

    private static Unsynced parse(Pattern pattern, String answer) {
        Matcher m = pattern.matcher(answer);
        if (!m.matches()) {
            throw new IllegalStateException("unexpected answer from the lazy disk: " + answer);
        }
        return new Unsynced(Long.parseLong(m.group(1)), Integer.parseInt(m.group(2)));
    }

    private synchronized String command(String line) {
        try {
            commands.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            commands.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "the lazy disk at " + mountPoint + " is gone (exit "
                            + (process.isAlive() ? "none yet" : process.exitValue()) + ")",
                    e);
        }
        String answer = answer();
        if (answer.startsWith("error")) {
            throw new IllegalStateException("the lazy disk at " + mountPoint + " refused '" + line + "': " + answer);
        }
        return answer;
    }

    private String answer() {
        try {
            String answer = answers.poll(ANSWER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (answer == null) {
                throw new IllegalStateException("the lazy disk at " + mountPoint + " did not answer within "
                        + ANSWER_TIMEOUT.toSeconds() + " s (alive: " + process.isAlive() + ")");
            }
            return answer;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the lazy disk", e);
        }
    }

    private void readAnswers(InputStream in) {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = reader.readLine()) != null) {
                answers.add(line);
            }
        } catch (IOException e) {
            // the daemon exited: a command waiting for an answer times out and says so
        }
        answers.add("error: the daemon exited");
    }

    /** Unmounts (the daemon does it on "quit"), then makes sure the daemon and the mount are gone. */
    @Override
    public void close() {
        try {
            commands.write("quit\n".getBytes(StandardCharsets.UTF_8));
            commands.close();
        } catch (IOException ignored) {
            // already gone
        }
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                Shell.tryRun("umount", "-l", mountPoint.toString());
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (mounted(mountPoint)) {
            Shell.tryRun("umount", "-l", mountPoint.toString());
        }
    }

    /** Whether a file system is mounted at {@code dir} (from /proc/self/mounts). */
    static boolean mounted(Path dir) {
        try {
            String target = dir.toAbsolutePath().normalize().toString();
            return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
                    .map(l -> l.split(" "))
                    .anyMatch(f -> f.length > 1 && f[1].equals(target));
        } catch (IOException e) {
            return false;
        }
    }
}
