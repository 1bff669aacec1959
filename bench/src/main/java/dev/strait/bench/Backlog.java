package dev.strait.bench;

import picocli.CommandLine.Option;

/**
 * The size of the backlog that {@code bin/bench} and {@code bin/bench mirror-topics} preload and then copy (a picocli
 * mixin): how many records of how many bytes. {@code --partitions} stays with each mode, since their help texts
 * describe it differently and users read those texts.
 */
final class Backlog {
    @Option(names = "--records", paramLabel = "N", description = "Records of the backlog.")
    long records = 1_000_000;

    @Option(names = "--record-size", paramLabel = "BYTES", description = "Bytes per record.")
    int recordBytes = 1024;

    /** Whether both counts are at least 1 (the caller names its other flags in the error). */
    boolean valid() {
        return records >= 1 && recordBytes >= 1;
    }
}
