package dev.strait.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Writes to an original stream (the console) and to a copy a test inspects afterwards, for example to check
 * that no password reached any log. Writers and readers of the copy synchronise on the copy.
 */
public final class TeeOutputStream extends OutputStream {
    private final OutputStream original;
    private final ByteArrayOutputStream copy;

    public TeeOutputStream(OutputStream original, ByteArrayOutputStream copy) {
        this.original = original;
        this.copy = copy;
    }

    @Override
    public void write(int b) {
        synchronized (copy) {
            copy.write(b);
        }
        try {
            original.write(b);
        } catch (IOException ignored) {
            // the console is not what the test checks
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        synchronized (copy) {
            copy.write(b, off, len);
        }
        try {
            original.write(b, off, len);
        } catch (IOException ignored) {
            // as above
        }
    }
}
