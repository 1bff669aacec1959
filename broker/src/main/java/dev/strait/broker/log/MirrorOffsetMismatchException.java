package dev.strait.broker.log;

/**
 * A mirrored copy did not continue the log at its end: a replay of batches already copied, or a copier that lost
 * its place. Nothing was appended; {@link #logEndOffset()} is where the copy has to continue from.
 */
public final class MirrorOffsetMismatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final long logEndOffset;

    public MirrorOffsetMismatchException(String message, long logEndOffset) {
        super(message);
        this.logEndOffset = logEndOffset;
    }

    /** The offset the next mirrored batch must start at or after. */
    public long logEndOffset() {
        return logEndOffset;
    }
}
