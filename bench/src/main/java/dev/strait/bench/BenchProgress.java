package dev.strait.bench;

import dev.strait.mirror.progress.Progress;
import dev.strait.time.Time;
import org.jspecify.annotations.Nullable;

/**
 * The progress of a bench's long phases, on stderr: drawn only when stderr is a terminal (or
 * {@code -Dstrait.progress=always}), so a redirected run's output holds the results and its logs alone. The benches
 * print no JSON, so nothing else turns it off. Their results go to stdout through {@link Progress#printAbove} while a
 * line is drawn.
 */
final class BenchProgress {
    private BenchProgress() {}

    /** Counts {@code unit} ("records", "partitions"), or steps when {@code unit} is null. */
    static Progress of(String label, @Nullable String unit) {
        return Progress.onStderr(label, unit, false, Time.SYSTEM);
    }
}
