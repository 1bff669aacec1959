package dev.strait.broker.controller;

import dev.strait.broker.raft.ElectionState;
import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.RaftStorage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A {@link FileRaftStorage} whose fsync takes longer: every flush waits {@link #flushDelayMs}, and the next flush
 * waits {@link #stallNextFlushMs} once more (a disk that stalls), and fails while {@link #failFlushes} is set.
 * Counts flushes. Thread-safe settings; the storage
 * itself belongs to the quorum loop like any other.
 */
final class SlowRaftStorage implements RaftStorage, AutoCloseable {

    final AtomicLong flushDelayMs = new AtomicLong();
    final AtomicLong stallNextFlushMs = new AtomicLong();
    final AtomicLong flushes = new AtomicLong();
    /** While set, every flush fails as a dying disk's fsync does. */
    final AtomicBoolean failFlushes = new AtomicBoolean();

    private final FileRaftStorage delegate;

    private SlowRaftStorage(FileRaftStorage delegate) {
        this.delegate = delegate;
    }

    /** Opens the file storage and hands the wrapper to {@code opened} (the test keeps it to slow it down). */
    static QuorumEnvironment.StorageOpener opener(AtomicReference<SlowRaftStorage> opened) {
        return directory -> {
            SlowRaftStorage storage = new SlowRaftStorage(FileRaftStorage.open(directory));
            opened.set(storage);
            return storage;
        };
    }

    @Override
    public ElectionState electionState() {
        return delegate.electionState();
    }

    @Override
    public void writeElectionState(ElectionState state) {
        delegate.writeElectionState(state);
    }

    @Override
    public long endOffset() {
        return delegate.endOffset();
    }

    @Override
    public LogEntry entry(long offset) {
        return delegate.entry(offset);
    }

    @Override
    public void append(LogEntry entry) {
        delegate.append(entry);
    }

    @Override
    public void truncateTo(long endOffset) {
        delegate.truncateTo(endOffset);
    }

    @Override
    public void flush() {
        if (failFlushes.get()) {
            throw new UncheckedIOException(new IOException("fsync failed: input/output error (simulated)"));
        }
        delegate.flush();
        flushes.incrementAndGet();
        long delay = flushDelayMs.get() + stallNextFlushMs.getAndSet(0);
        if (delay > 0) {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public void close() throws IOException {
        delegate.close();
    }

    @Override
    public long startOffset() {
        return delegate.startOffset();
    }

    @Override
    public java.util.Optional<dev.strait.broker.raft.SnapshotInfo> latestSnapshot() {
        return delegate.latestSnapshot();
    }

    @Override
    public java.util.Optional<byte[]> readSnapshot(
            dev.strait.broker.raft.OffsetAndEpoch id, long position, int maxBytes) {
        return delegate.readSnapshot(id, position, maxBytes);
    }

    @Override
    public void installSnapshot(dev.strait.broker.raft.OffsetAndEpoch id, byte[] content) {
        delegate.installSnapshot(id, content);
    }

    @Override
    public long highWatermark() {
        return delegate.highWatermark();
    }

    @Override
    public void writeHighWatermark(long highWatermark) {
        delegate.writeHighWatermark(highWatermark);
    }
}
