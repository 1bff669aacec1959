package dev.strait.bench;

import picocli.CommandLine.Option;

/**
 * The flags of the workload that bin/bench broker and bin/bench cluster both give Kafka's ProducerPerformance
 * (a picocli mixin): how many records, how large, into how many partitions.
 */
final class ProducerWorkload {
    @Option(names = "--records", paramLabel = "N", description = "Records per ProducerPerformance run.")
    long records = 1_000_000;

    @Option(names = "--record-size", paramLabel = "BYTES", description = "Bytes per record.")
    int recordBytes = 1024;

    @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the topic.")
    int partitions = 6;

    /** Whether every count is at least 1 (the caller names its other flags in the error). */
    boolean valid() {
        return records >= 1 && recordBytes >= 1 && partitions >= 1;
    }
}
