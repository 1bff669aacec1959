package dev.strait.broker.protocol;

import dev.strait.broker.log.FileSlice;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.network.TransferableChannel;
import org.apache.kafka.common.record.BaseRecords;
import org.apache.kafka.common.record.RecordsSend;

/**
 * A {@link FileSlice} of the log as kafka-clients {@link BaseRecords}, so that a fetch response built with
 * {@code RequestContext.buildResponseSend} sends it with {@code FileChannel.transferTo} (zero-copy) rather than
 * copying it into the heap. The generated serializer treats any non-memory records this way.
 */
final class FileSliceRecords implements BaseRecords {

    /** baseOffset (int64) then batchLength (int32, the bytes after this field). */
    private static final int BATCH_LENGTH_FIELD_OFFSET = 8;

    private static final int BATCH_SIZE_PREFIX_BYTES = 12;

    private final FileSlice slice;

    FileSliceRecords(FileSlice slice) {
        this.slice = slice;
    }

    /**
     * Whether the slice holds at least its first batch whole. A slice cut at {@code maxBytes} without
     * minOneBatch may not; Kafka (since Fetch v3, KIP-74) then answers with no records rather than a partial
     * first batch, which the Java consumer rejects ("Failed to make progress").
     */
    static boolean startsWithCompleteBatch(FileSlice slice) throws IOException {
        if (slice.sizeBytes() < BATCH_SIZE_PREFIX_BYTES) {
            return false;
        }
        ByteBuffer prefix = ByteBuffer.allocate(BATCH_SIZE_PREFIX_BYTES);
        while (prefix.hasRemaining()) {
            if (slice.nonEmptyChannel().read(prefix, slice.position() + prefix.position()) < 0) {
                throw new EOFException("slice " + slice + " ends before its first batch header");
            }
        }
        long batchSizeBytes = BATCH_SIZE_PREFIX_BYTES + (long) prefix.getInt(BATCH_LENGTH_FIELD_OFFSET);
        return batchSizeBytes <= slice.sizeBytes();
    }

    @Override
    public int sizeInBytes() {
        return slice.sizeBytes();
    }

    @Override
    public RecordsSend<FileSliceRecords> toSend() {
        return new RecordsSend<>(this, slice.sizeBytes()) {
            @Override
            protected int writeTo(TransferableChannel channel, int previouslyWritten, int remaining)
                    throws IOException {
                return (int) channel.transferFrom(slice.channel(), slice.position() + previouslyWritten, remaining);
            }
        };
    }

    @Override
    public String toString() {
        return "FileSliceRecords[" + slice + "]";
    }
}
