package dev.strait.mirror.progress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Whether stderr is a terminal, where progress may be drawn. {@code System.console()} answers for stdin and
 * stdout only (null under {@code strait failback --execute > plan.txt} although the operator watches stderr), so
 * on Linux the answer is where file descriptor 2 points ({@code /dev/pts/N}, {@code /dev/ttyN}); elsewhere the
 * console is the best guess. The system property {@code strait.progress} overrides both: {@code always} (under a
 * tool that records the terminal) or {@code never}.
 */
public final class Terminal {
    /** The system property that overrides the detection: auto (the default), always or never. */
    public static final String PROPERTY = "strait.progress";

    private Terminal() {}

    /** Whether progress goes to stderr: the property's choice, else whether stderr is a terminal. */
    public static boolean stderrShowsProgress() {
        String mode = System.getProperty(PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
        switch (mode) {
            case "always":
                return true;
            case "never":
                return false;
            case "auto":
            case "":
                return stderrIsTerminal();
            default:
                throw new IllegalArgumentException(
                        "-D" + PROPERTY + "=" + mode + " is not a choice: give auto, always or never");
        }
    }

    /** Whether the property asks for progress even where stderr is no terminal (work that ends at once too). */
    public static boolean forced() {
        return "always".equalsIgnoreCase(System.getProperty(PROPERTY, "").trim());
    }

    static boolean stderrIsTerminal() {
        Path fd = Path.of("/proc/self/fd/2");
        if (Files.isSymbolicLink(fd)) {
            try {
                return isTerminalDevice(Files.readSymbolicLink(fd).toString());
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return System.console() != null;
    }

    /** A Linux terminal device: a pseudo-terminal, a virtual console, a serial line. */
    static boolean isTerminalDevice(String device) {
        return device.startsWith("/dev/pts/") || device.startsWith("/dev/tty") || device.equals("/dev/console");
    }
}
