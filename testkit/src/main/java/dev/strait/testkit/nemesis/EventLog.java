package dev.strait.testkit.nemesis;

import java.io.PrintStream;
import java.util.Locale;

/** The run's live log: one line per thing the nemesis did or saw, stamped with the seconds since the run began. */
public final class EventLog {
    private final PrintStream out;
    private final long startNanos = System.nanoTime();

    public EventLog(PrintStream out) {
        this.out = out;
    }

    /** System.nanoTime at the run's start: the zero of the log's time stamps. */
    public long startNanos() {
        return startNanos;
    }

    public void log(String line) {
        out.println(String.format(Locale.ROOT, "[%7.1f s] %s", (System.nanoTime() - startNanos) / 1e9, line));
        out.flush();
    }
}
