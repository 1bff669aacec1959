package dev.strait.broker.controller;

import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.RaftStorage;
import dev.strait.time.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.ThreadFactory;

/**
 * What a node's metadata quorum takes from outside instead of reaching for it: time, randomness (election jitter,
 * incarnation and topic ids, correlation ids), the handler of fatal faults, and, for tests, the Raft storage, the
 * transport between nodes and the thread that runs the loop. Immutable.
 */
public final class QuorumEnvironment {

    /** Opens the Raft storage of a node; the runtime closes it if it is {@link AutoCloseable}. */
    @FunctionalInterface
    interface StorageOpener {
        RaftStorage open(Path directory) throws IOException;
    }

    final Time time;
    final Random random;
    final FaultHandler faults;
    final StorageOpener storage;
    final ControllerTransport.Factory transport;
    final ThreadFactory threads;
    /** Names the running boot of the machine ({@link PreviousLife}). */
    final Path bootIdFile;

    private QuorumEnvironment(
            Time time,
            Random random,
            FaultHandler faults,
            StorageOpener storage,
            ControllerTransport.Factory transport,
            ThreadFactory threads,
            Path bootIdFile) {
        this.time = Objects.requireNonNull(time, "time");
        this.random = Objects.requireNonNull(random, "random");
        this.faults = Objects.requireNonNull(faults, "faults");
        this.storage = Objects.requireNonNull(storage, "storage");
        this.transport = Objects.requireNonNull(transport, "transport");
        this.threads = Objects.requireNonNull(threads, "threads");
        this.bootIdFile = Objects.requireNonNull(bootIdFile, "bootIdFile");
    }

    /**
     * The production environment: the Raft log in files ({@link FileRaftStorage}), TCP between nodes
     * ({@link ControllerChannel}), a daemon thread for the loop.
     *
     * @param random must be thread-safe ({@link Random} is) and, in production, unpredictable: topic and
     *               incarnation ids come from it
     * @param faults called once if the quorum loop fails; the node must then stop
     */
    public static QuorumEnvironment of(Time time, Random random, FaultHandler faults) {
        return new QuorumEnvironment(
                time,
                random,
                faults,
                FileRaftStorage::open,
                ControllerChannel::create,
                body -> {
                    Thread thread = new Thread(body);
                    thread.setDaemon(true);
                    return thread;
                },
                PreviousLife.LINUX_BOOT_ID);
    }

    /** For tests: another Raft storage (a slow or failing disk). */
    QuorumEnvironment withStorage(StorageOpener opener) {
        return new QuorumEnvironment(time, random, faults, opener, transport, threads, bootIdFile);
    }

    /** For tests: another transport between nodes. */
    QuorumEnvironment withTransport(ControllerTransport.Factory factory) {
        return new QuorumEnvironment(time, random, faults, storage, factory, threads, bootIdFile);
    }

    /** For tests: another way to create the loop thread (the runtime names it). */
    QuorumEnvironment withThreads(ThreadFactory factory) {
        return new QuorumEnvironment(time, random, faults, storage, transport, factory, bootIdFile);
    }

    /**
     * Another file naming the machine's boot (default {@code /proc/sys/kernel/random/boot_id}): tests that simulate
     * a power loss without rebooting change it, as a reboot would.
     */
    public QuorumEnvironment withBootIdFile(Path file) {
        return new QuorumEnvironment(time, random, faults, storage, transport, threads, file);
    }
}
