package dev.strait.lag.sample;

import java.util.List;

/**
 * One sampling cycle: every partition's lag figures, when they were taken and how long the cycle took.
 * {@code errors} are clusters that could not be read (status ERR); {@code warnings} are lesser gaps, such
 * as an unreachable mirror metrics endpoint (the consumer-read lag is then unknown). Immutable.
 */
public record LagSnapshot(
        long timestampMs,
        long cycleMs,
        List<PartitionLag> partitions,
        List<String> errors,
        List<String> warnings,
        int sourceCalls,
        int targetCalls) {
    public LagSnapshot {
        partitions = List.copyOf(partitions);
        errors = List.copyOf(errors);
        warnings = List.copyOf(warnings);
    }

    public boolean failed() {
        return !errors.isEmpty();
    }
}
