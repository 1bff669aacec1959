package dev.strait.mirror.progress;

import dev.strait.time.Time;
import java.io.PrintStream;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * One line of progress on stderr for work an operator waits on, redrawn in place: a bar, the count of the total,
 * the rate and the time left ({@code failback: copying back [#####-----] 5,000/10,000 records 50% 1,234/s ETA
 * 0:04}), or for a sequence of steps the step and what it does. Off when stderr is not a terminal or the command
 * prints JSON ({@link #onStderr}): stdout holds the result alone and logs stay free of carriage returns.
 *
 * <p>Drawn at most every {@link #DRAW_INTERVAL_MS} so a loop may report every record, and not before
 * {@link #QUIET_MS} has passed: work that ends at once prints nothing. {@link #finish} draws the last state and
 * ends the line (only when something was drawn). Thread-safe: a bench's workers may report to one.
 *
 * <p>Two choices for long sequences of steps: {@link #evenSteps} adds the time left, from the average step so far,
 * when the steps take about as long each (a bench's runs); {@link #lines} prints whole lines instead of redrawing
 * one, for a stream that other output shares line by line (a live event log on stderr). Other output for the same
 * terminal goes through {@link #printAbove}, which keeps the redrawn line below it.
 */
public final class Progress implements AutoCloseable {
    /** The shortest time between two draws. */
    public static final long DRAW_INTERVAL_MS = 250;
    /** How long work goes on before its progress shows. */
    public static final long QUIET_MS = 1000;

    private static final int BAR = 20;
    private static final int MAX_DETAIL = 40;

    private final String label;
    /** What is counted ("records"), or null when steps are. */
    private final @Nullable String unit;

    private final PrintStream err;
    private final boolean on;
    private final Time time;
    private final long intervalMs;
    private final long quietMs;
    private long startMs;
    private long total = -1;
    private long done;
    private String detail = "";
    private long lastDrawMs;
    private boolean shown;
    private boolean finished;
    private int lastWidth;
    private boolean cleared;
    private boolean evenSteps;
    private boolean lines;
    private String lastLine = "";

    /**
     * @param unit what is counted ("records", "groups"), or null for steps: then the line names the step
     *     ({@link #update(long, String)}) and the time spent instead of a rate
     * @param on false draws nothing at all
     */
    public Progress(
            String label,
            @Nullable String unit,
            PrintStream err,
            boolean on,
            Time time,
            long intervalMs,
            long quietMs) {
        this.label = label;
        this.unit = unit;
        this.err = err;
        this.on = on;
        this.time = time;
        this.intervalMs = intervalMs;
        this.quietMs = quietMs;
        this.startMs = time.milliseconds();
    }

    /** Progress on stderr: drawn when stderr is a terminal ({@link Terminal}) and the output is not JSON. */
    public static Progress onStderr(String label, @Nullable String unit, boolean json, Time time) {
        boolean on = !json && Terminal.stderrShowsProgress();
        return new Progress(label, unit, System.err, on, time, DRAW_INTERVAL_MS, Terminal.forced() ? 0 : QUIET_MS);
    }

    /** Progress that draws nothing: for callers that report none. */
    public static Progress off() {
        return new Progress("", null, System.err, false, Time.SYSTEM, DRAW_INTERVAL_MS, QUIET_MS);
    }

    /**
     * Steps (no unit) that take about as long each: the line also shows the time left, the average step so far
     * times the steps left. Call before {@link #start}.
     */
    public synchronized Progress evenSteps() {
        evenSteps = true;
        return this;
    }

    /**
     * Whole lines instead of one line redrawn in place: each draw (at most every interval) ends its line and no
     * carriage return is written, so lines that other code prints to the same stream stay whole. Call before
     * {@link #start}.
     */
    public synchronized Progress lines() {
        lines = true;
        return this;
    }

    /** Starts the clock (the rate and the time left count from here) with the total, or -1 when unknown. */
    public synchronized Progress start(long newTotal) {
        startMs = time.milliseconds();
        total = newTotal;
        done = 0;
        return this;
    }

    public synchronized void update(long count) {
        update(count, detail);
    }

    /** The count so far and what is being done now (for steps: the step's name). */
    public synchronized void update(long count, String what) {
        done = count;
        detail = what == null ? "" : what;
        if (!on || finished) {
            return;
        }
        long now = time.milliseconds();
        boolean due = shown ? cleared || now - lastDrawMs >= intervalMs : now - startMs >= quietMs;
        if (due) {
            draw(now, false);
        }
    }

    /** The same count and step again: the clock on the line goes on (when due) through work that reports nothing. */
    public synchronized void tick() {
        update(done, detail);
    }

    /** Draws the last state and ends the line, if anything was drawn; quick work stays silent. Idempotent. */
    public synchronized void finish() {
        if (!on || finished) {
            return;
        }
        finished = true;
        if (shown) {
            if (lines) {
                String last = line(time.milliseconds(), true);
                if (!last.equals(lastLine)) {
                    err.println(last);
                    err.flush();
                }
                return;
            }
            draw(time.milliseconds(), true);
            err.println();
            err.flush();
        }
    }

    /**
     * Prints {@code text} and a line end to {@code out} (stdout, say, on the same terminal) above the progress:
     * the drawn line is wiped first and drawn again after, so neither garbles the other.
     */
    public synchronized void printAbove(PrintStream out, String text) {
        boolean redraw = on && shown && !finished && !lines;
        if (redraw) {
            clear();
            err.flush();
        }
        out.println(text);
        out.flush();
        if (redraw) {
            draw(time.milliseconds(), false);
        }
    }

    /**
     * Wipes the drawn line, so that what the command prints next on the same terminal (its stdout) starts on a
     * clean line; the next {@link #update} draws it again at once.
     */
    public synchronized void clear() {
        if (on && shown && !finished && !lines && lastWidth > 0) {
            err.print("\r" + " ".repeat(lastWidth) + "\r");
            err.flush();
            lastWidth = 0;
            cleared = true;
        }
    }

    @Override
    public void close() {
        finish();
    }

    private void draw(long now, boolean last) {
        String line = line(now, last);
        if (lines) {
            err.println(line);
            err.flush();
            lastLine = line;
            lastDrawMs = now;
            shown = true;
            return;
        }
        StringBuilder b =
                new StringBuilder(line.length() + lastWidth + 1).append('\r').append(line);
        // Blank out what a longer previous line left behind.
        for (int i = line.length(); i < lastWidth; i++) {
            b.append(' ');
        }
        err.print(b);
        err.flush();
        lastWidth = line.length();
        lastDrawMs = now;
        shown = true;
        cleared = false;
    }

    private String line(long now, boolean last) {
        long elapsedMs = Math.max(0, now - startMs);
        StringBuilder b = new StringBuilder(label);
        if (total > 0) {
            b.append(" [").append(bar()).append(']');
        }
        b.append("  ").append(String.format(Locale.ROOT, "%,d", done));
        if (total >= 0) {
            b.append(String.format(Locale.ROOT, "/%,d", total));
        }
        if (unit == null) {
            if (!detail.isEmpty()) {
                b.append("  ").append(detail.length() > MAX_DETAIL ? detail.substring(0, MAX_DETAIL) : detail);
            }
            b.append("  ").append(duration(elapsedMs / 1000));
            if (evenSteps && !last && total > 0 && done < total) {
                b.append("  ETA ").append(done <= 0 ? "--" : duration(elapsedMs * (total - done) / done / 1000));
            }
            return b.toString();
        }
        b.append(' ').append(unit);
        if (total > 0) {
            b.append(String.format(Locale.ROOT, "  %d%%", Math.min(100, done * 100 / total)));
        }
        double rate = elapsedMs == 0 ? 0 : done * 1000.0 / elapsedMs;
        if (elapsedMs > 0) {
            b.append(String.format(Locale.ROOT, "  %,d/s", Math.round(rate)));
        }
        if (last) {
            b.append("  in ").append(duration(elapsedMs / 1000));
        } else if (total >= 0 && rate > 0) {
            b.append("  ETA ").append(duration((long) Math.ceil(Math.max(0, total - done) / rate)));
        } else if (total >= 0) {
            b.append("  ETA --");
        }
        return b.toString();
    }

    private String bar() {
        int full = (int) Math.min(BAR, Math.max(0, done) * BAR / total);
        return "#".repeat(full) + "-".repeat(BAR - full);
    }

    /** m:ss, or h:mm:ss from an hour on. */
    static String duration(long seconds) {
        long h = seconds / 3600;
        long m = seconds / 60 % 60;
        long s = seconds % 60;
        return h > 0
                ? String.format(Locale.ROOT, "%d:%02d:%02d", h, m, s)
                : String.format(Locale.ROOT, "%d:%02d", m, s);
    }
}
