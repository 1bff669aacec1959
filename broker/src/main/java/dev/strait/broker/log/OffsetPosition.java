package dev.strait.broker.log;

/** An offset index entry: the batch whose last offset is {@code offset} starts at byte {@code position}. */
public record OffsetPosition(long offset, int position) {}
