package dev.strait.broker.log;

/** A timestamp and the offset of a record carrying it (time index entries, ListOffsets answers). */
public record TimestampAndOffset(long timestampMs, long offset) {}
