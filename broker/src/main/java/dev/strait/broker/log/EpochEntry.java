package dev.strait.broker.log;

/** Leader epoch {@code epoch} began at {@code startOffset}: the first offset written by that leader. */
public record EpochEntry(int epoch, long startOffset) {}
