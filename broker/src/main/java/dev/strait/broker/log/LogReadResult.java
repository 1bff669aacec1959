package dev.strait.broker.log;

/**
 * The answer to a read: bytes to send, plus the offsets a fetch response reports. Immutable (the slice borrows a
 * segment channel; see {@link FileSlice}).
 *
 * @param records        batches starting with the one that contains the requested offset; may be empty
 * @param highWatermark  the high watermark when the read happened
 * @param logStartOffset the log start offset when the read happened
 * @param logEndOffset   the log end offset when the read happened
 */
public record LogReadResult(FileSlice records, long highWatermark, long logStartOffset, long logEndOffset) {}
