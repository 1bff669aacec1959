package dev.strait.broker.log;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/** Positional read/write loops over a {@link FileChannel}; they never touch the channel's own position. */
final class FileIo {

    private FileIo() {}

    /** Fills {@code buffer} from {@code position}, or throws {@link EOFException} if the file is too short. */
    static void readFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long readPosition = position;
        while (buffer.hasRemaining()) {
            int read = channel.read(buffer, readPosition);
            if (read < 0) {
                throw new EOFException("end of file at position " + readPosition + " with " + buffer.remaining()
                        + " bytes still to read");
            }
            readPosition += read;
        }
    }

    static void writeFully(FileChannel channel, ByteBuffer buffer, long position) throws IOException {
        long writePosition = position;
        while (buffer.hasRemaining()) {
            writePosition += channel.write(buffer, writePosition);
        }
    }
}
