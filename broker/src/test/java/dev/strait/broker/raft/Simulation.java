package dev.strait.broker.raft;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * A whole quorum of real {@link RaftNode}s on one thread with a fake clock, a fake network and fake disks, all
 * driven by one seed, so that a failing schedule replays exactly.
 *
 * <ul>
 *   <li>Clock: simulated milliseconds; events run in (time, sequence) order from one priority queue.
 *   <li>Network: every message gets a random delay (so messages reorder), may be dropped or duplicated, and is
 *       dropped when a partition separates sender and receiver at delivery time. A third of the random
 *       partitions block only one direction.
 *   <li>Disk: {@link SimDisk}; a crash loses writes that were not flushed.
 *   <li>State machine and snapshots: every node applies its committed entries to a list of them (the
 *       simulated state) and, when its {@link RaftNode#snapshotDue} says so, writes that list as a snapshot,
 *       which truncates its log. Snapshot thresholds, the FetchSnapshot chunk size and the high-watermark
 *       checkpoint interval vary by seed (a quarter of the seeds take no snapshots at all), so followers and the
 *       observer that fall behind a leader's log start must download a snapshot.
 *   <li>Faults: crashes, restarts, partitions and heals chosen at random by a chaos event every
 *       {@link #CHAOS_INTERVAL_MS}; client proposals go to the leader (mostly) or to a random node; a power loss
 *       in the middle of a node's next snapshot install (torn temp file, or before the log is rewritten behind
 *       it); snapshot chunks corrupted in flight (the follower must catch it by the content's CRC).
 * </ul>
 *
 * Invariants checked after every event: at most one leader per epoch; a node's epoch never goes back, even
 * across restarts; a new leader holds every committed entry (in its log or its snapshot);
 * a node's high watermark never goes back while it runs; committed entries (seen committed by any node) are
 * never changed; every snapshot a node holds is exactly the committed prefix it claims to cover, and covers
 * nothing beyond the node's high watermark; every acknowledged proposal is committed with its payload. After
 * the chaos phase everything heals, and the quorum must then commit a fresh proposal on every node within a step
 * budget (liveness), with identical committed logs everywhere.
 *
 * <p>Manual methods ({@link #crash}, {@link #partition}, {@link #runFor}, ...) let scenario tests script a
 * schedule while the same invariants run. Not thread-safe.
 */
final class Simulation {

    static final long CHAOS_INTERVAL_MS = 10;
    private static final int TRACE_SIZE = 60;
    private static final long MAX_EVENTS = 2_000_000;

    /**
     * Timings scaled down from the defaults; fetch size and backoff vary by seed, because a small fetch size is
     * what lets a follower confirm entries of an old epoch without the new leader's first entry.
     */
    static RaftConfig randomConfig(Random random) {
        RaftConfig timings = new RaftConfig(150, 150, 60, 5 + random.nextInt(25), 100, 450, 1 + random.nextInt(20));
        boolean snapshots = random.nextInt(4) > 0;
        long maxBytes = snapshots ? 20 + random.nextInt(300) : Long.MAX_VALUE;
        long intervalMs = snapshots && random.nextBoolean() ? 50 + random.nextInt(500) : 0;
        return timings.withSnapshots(maxBytes, intervalMs)
                .withTransfer(16 + random.nextInt(400), 5 + random.nextInt(100));
    }

    /** Timings as {@link #randomConfig} would draw them, without snapshots. */
    static RaftConfig configWithoutSnapshots(Random random) {
        return new RaftConfig(150, 150, 60, 5 + random.nextInt(25), 100, 450, 1 + random.nextInt(20));
    }

    /** Fault rates for one run; random ones come from the seed. */
    record Faults(
            double dropRate,
            double duplicateRate,
            int maxDelayMs,
            double crashRate,
            double restartRate,
            double partitionRate,
            double healRate,
            double proposeRate,
            double snapshotCrashRate,
            double corruptChunkRate) {

        static final Faults NONE = new Faults(0, 0, 5, 0, 0, 0, 0, 0, 0, 0);

        static Faults random(Random random) {
            return new Faults(
                    random.nextDouble() * 0.2,
                    random.nextDouble() * 0.05,
                    1 + random.nextInt(40),
                    random.nextDouble() * 0.06,
                    0.05 + random.nextDouble() * 0.3,
                    random.nextDouble() * 0.04,
                    0.01 + random.nextDouble() * 0.05,
                    0.1 + random.nextDouble() * 0.4,
                    random.nextDouble() * 0.02,
                    random.nextDouble() * 0.05);
        }
    }

    /** Which way a partition blocks messages; one-way partitions are the classic trap for liveness. */
    enum Direction {
        BOTH,
        FROM_ISLAND,
        TO_ISLAND
    }

    private record Event(long timeMs, long seq, Object what) {}

    private record Deliver(RaftMessage message) {}

    private record Tick(int node) {}

    private record Chaos() {}

    private record Note(String text) {}

    private record Acked(long offset, byte[] payload) {}

    /** What a run exercised, so a sweep can show (and assert) that the faults really happened. */
    static final class Stats {
        long crashes;
        long partitions;
        long dropped;
        long duplicated;
        long divergences;
        long elections;
        long snapshotsTaken;
        /** Snapshots a node downloaded from its leader and installed. */
        long snapshotsInstalled;
        /** Nodes that started on a truncated log and loaded their state from a snapshot. */
        long snapshotLoads;
        /** Power losses inside a snapshot install (torn temp file, or before the log rewrite). */
        long snapshotCrashes;

        long corruptedChunks;
        long highWatermarkRestarts;
        /** SNAPSHOT_NOT_FOUND answers: a leader replaced the snapshot a follower was downloading. */
        long snapshotsReplacedMidDownload;

        void add(Stats other) {
            crashes += other.crashes;
            partitions += other.partitions;
            dropped += other.dropped;
            duplicated += other.duplicated;
            divergences += other.divergences;
            elections += other.elections;
            snapshotsTaken += other.snapshotsTaken;
            snapshotsInstalled += other.snapshotsInstalled;
            snapshotLoads += other.snapshotLoads;
            snapshotCrashes += other.snapshotCrashes;
            corruptedChunks += other.corruptedChunks;
            highWatermarkRestarts += other.highWatermarkRestarts;
            snapshotsReplacedMidDownload += other.snapshotsReplacedMidDownload;
        }

        @Override
        public String toString() {
            return "elections=" + elections + " crashes=" + crashes + " partitions=" + partitions + " dropped="
                    + dropped + " duplicated=" + duplicated + " divergence-answers=" + divergences
                    + " snapshots-taken=" + snapshotsTaken + " snapshots-installed=" + snapshotsInstalled
                    + " snapshot-loads=" + snapshotLoads + " snapshot-crashes=" + snapshotCrashes
                    + " corrupted-chunks=" + corruptedChunks + " restarts-with-durable-hw=" + highWatermarkRestarts
                    + " snapshots-replaced-mid-download=" + snapshotsReplacedMidDownload;
        }
    }

    /** One simulated machine: its disk outlives the {@link RaftNode} that a crash destroys. */
    private static final class Host {
        final int id;
        final SimDisk disk;
        RaftNode node;
        long checkedHighWatermark;
        long scheduledTickMs = Long.MAX_VALUE;
        /** Highest epoch seen, kept across restarts: the election state is durable, so epochs never go back. */
        int highestEpoch;

        int side;
        /** The node's state machine: its committed entries from offset 0, rebuilt from snapshot + log on start. */
        List<LogEntry> applied = new ArrayList<>();
        /** The latest snapshot the checker verified on this node. */
        SnapshotInfo verifiedSnapshot;

        Host(int id, boolean lyingDisk) {
            this.id = id;
            this.disk = new SimDisk(lyingDisk);
        }
    }

    final long seed;
    private final Random random;
    private final List<Integer> voterIds;
    private final Map<Integer, Host> hosts = new TreeMap<>();
    private final PriorityQueue<Event> queue = new PriorityQueue<>(
            (a, b) -> a.timeMs != b.timeMs ? Long.compare(a.timeMs, b.timeMs) : Long.compare(a.seq, b.seq));
    private final Object[] trace = new Object[TRACE_SIZE];
    private final Map<Integer, Integer> leaderOfEpoch = new HashMap<>();
    private final List<LogEntry> committed = new ArrayList<>();
    private final List<Acked> acked = new ArrayList<>();
    private final RaftConfig config;
    private Faults faults;
    private Direction partitionDirection = Direction.BOTH;
    private boolean chaosOn;
    private long nowMs;
    private long seq;
    private long events;
    private long traced;
    private final Stats stats = new Stats();
    private int proposals;

    Simulation(long seed, int voters, int observers, boolean lyingDisks) {
        this(seed, voters, observers, lyingDisks, true);
    }

    /** With {@code snapshots} false the nodes never snapshot (the pre-snapshot behaviour, for scripted tests). */
    Simulation(long seed, int voters, int observers, boolean lyingDisks, boolean snapshots) {
        this(
                seed,
                voters,
                observers,
                lyingDisks,
                snapshots ? Simulation::randomConfig : Simulation::configWithoutSnapshots);
    }

    /** With a config of the test's own. */
    Simulation(long seed, int voters, int observers, boolean lyingDisks, RaftConfig config) {
        this(seed, voters, observers, lyingDisks, random -> config);
    }

    private Simulation(
            long seed,
            int voters,
            int observers,
            boolean lyingDisks,
            java.util.function.Function<Random, RaftConfig> configs) {
        this.seed = seed;
        this.random = new Random(seed);
        this.faults = Faults.NONE;
        this.config = configs.apply(random);
        List<Integer> ids = new ArrayList<>();
        for (int id = 1; id <= voters; id++) {
            ids.add(id);
        }
        this.voterIds = List.copyOf(ids);
        for (int id = 1; id <= voters + observers; id++) {
            hosts.put(id, new Host(id, lyingDisks));
        }
        for (Host host : hosts.values()) {
            start(host);
        }
    }

    // ---------------------------------------------------------------- the randomized schedule

    /** Runs one random schedule: chaos for {@code chaosMs}, then heal and demand progress within the budget. */
    void runRandomSchedule(long chaosMs, long livenessBudgetMs) {
        faults = Faults.random(random);
        note("faults " + faults);
        chaosOn = true;
        schedule(CHAOS_INTERVAL_MS, new Chaos());
        runFor(chaosMs);
        chaosOn = false;
        healEverything();
        awaitProgress(livenessBudgetMs);
    }

    /** Heals partitions, restarts crashed nodes and stops message loss (delays and reordering go on). */
    void healEverything() {
        note("heal everything");
        faults = new Faults(0, 0, faults.maxDelayMs(), 0, 0, 0, 0, 0, 0, 0);
        for (Host host : hosts.values()) {
            host.side = 0;
            host.disk.armSnapshotCrash(null);
            if (host.node == null) {
                start(host);
            }
        }
    }

    /**
     * Liveness: a fresh proposal must commit and every node's high watermark must reach it within the budget;
     * then all committed logs must be identical.
     */
    void awaitProgress(long budgetMs) {
        long deadlineMs = nowMs + budgetMs;
        CompletableFuture<Long> probe = null;
        long target = -1;
        while (nowMs < deadlineMs) {
            runFor(20);
            if (target < 0 && (probe == null || probe.isCompletedExceptionally())) {
                RaftNode leader = currentLeader();
                probe = leader == null ? null : propose(leader.nodeId(), "probe-" + nowMs);
            }
            if (target < 0 && probe != null && probe.isDone() && !probe.isCompletedExceptionally()) {
                target = probe.join() + 1;
            }
            long reached = target;
            if (reached >= 0 && hosts.values().stream().allMatch(h -> h.node.highWatermark() >= reached)) {
                checkLogsConverged();
                return;
            }
        }
        fail("no progress within " + budgetMs + " ms after healing");
    }

    // ---------------------------------------------------------------- manual control for scenarios

    void runFor(long durationMs) {
        long untilMs = nowMs + durationMs;
        while (!queue.isEmpty() && queue.peek().timeMs <= untilMs) {
            step(queue.poll());
        }
        nowMs = untilMs;
    }

    /** Runs until some node leads, failing after {@code budgetMs}. */
    RaftNode awaitLeader(long budgetMs) {
        long deadlineMs = nowMs + budgetMs;
        while (nowMs < deadlineMs) {
            RaftNode leader = currentLeader();
            if (leader != null) {
                return leader;
            }
            runFor(10);
        }
        throw fail("no leader within " + budgetMs + " ms");
    }

    /** The running leader of the highest epoch, or null. */
    RaftNode currentLeader() {
        RaftNode best = null;
        for (Host host : hosts.values()) {
            if (host.node != null && host.node.isLeader() && (best == null || host.node.epoch() > best.epoch())) {
                best = host.node;
            }
        }
        return best;
    }

    RaftNode node(int id) {
        return hosts.get(id).node;
    }

    List<Integer> voterIds() {
        return voterIds;
    }

    CompletableFuture<Long> propose(int nodeId, String payload) {
        return propose(nodeId, payload.getBytes(StandardCharsets.UTF_8), payload);
    }

    CompletableFuture<Long> propose(int nodeId, byte[] bytes, String description) {
        Host host = hosts.get(nodeId);
        if (host.node == null) {
            return CompletableFuture.failedFuture(new NotLeaderException("down", -1, -1));
        }
        note("propose to " + nodeId + ": " + description);
        CompletableFuture<Long> result = host.node.propose(bytes, nowMs);
        result.thenAccept(offset -> acked.add(new Acked(offset, bytes)));
        afterNodeActivity(host);
        checkInvariants();
        return result;
    }

    /** Power fails during node {@code nodeId}'s next snapshot install (its own or one from a leader). */
    void armSnapshotCrash(int nodeId, SimDisk.SnapshotCrash where) {
        note("arm a power loss in node " + nodeId + "'s next snapshot: " + where);
        hosts.get(nodeId).disk.armSnapshotCrash(where);
    }

    void crash(int nodeId) {
        Host host = hosts.get(nodeId);
        if (host.node == null) {
            return;
        }
        note("crash " + nodeId);
        host.applied = new ArrayList<>();
        stats.crashes++;
        host.node = null;
        host.disk.crash(random);
        host.scheduledTickMs = Long.MAX_VALUE;
    }

    void restart(int nodeId) {
        Host host = hosts.get(nodeId);
        if (host.node == null) {
            note("restart " + nodeId);
            start(host);
        }
    }

    /** Cuts {@code island} off from every other node, both ways, until {@link #healPartition()}. */
    void partition(Set<Integer> island) {
        partition(island, Direction.BOTH);
    }

    /** Cuts the links between {@code island} and the other nodes in the given direction(s). */
    void partition(Set<Integer> island, Direction direction) {
        note("partition " + island + " " + direction);
        partitionDirection = direction;
        stats.partitions++;
        for (Host host : hosts.values()) {
            host.side = island.contains(host.id) ? 1 : 0;
        }
    }

    void healPartition() {
        note("heal partition");
        for (Host host : hosts.values()) {
            host.side = 0;
        }
    }

    long nowMs() {
        return nowMs;
    }

    Stats stats() {
        return stats;
    }

    long events() {
        return events;
    }

    int committedCount() {
        return committed.size();
    }

    List<LogEntry> committedEntries() {
        return List.copyOf(committed);
    }

    /** Every running node's committed prefix is identical to the checker's record of committed entries. */
    void checkLogsConverged() {
        for (Host host : hosts.values()) {
            if (host.node == null) {
                continue;
            }
            long hw = host.node.highWatermark();
            if (hw > committed.size()) {
                fail("node " + host.id + " hw " + hw + " beyond the checked committed log " + committed.size());
            }
            verifySnapshot(host);
            for (long offset = host.node.logStartOffset(); offset < hw; offset++) {
                if (!host.node.entry(offset).equals(committed.get((int) offset))) {
                    fail("node " + host.id + " committed entry " + offset + " differs: " + host.node.entry(offset));
                }
            }
        }
    }

    // ---------------------------------------------------------------- engine

    private void start(Host host) {
        Random nodeRandom = new Random(random.nextLong());
        try {
            host.node = new RaftNode(host.id, voterIds, config, host.disk, this::send, nodeRandom, nowMs);
        } catch (RuntimeException e) {
            throw fail("node " + host.id + " failed to start: " + e);
        }
        host.checkedHighWatermark = 0;
        host.scheduledTickMs = Long.MAX_VALUE;
        host.applied = new ArrayList<>();
        if (host.node.highWatermark() > 0) {
            stats.highWatermarkRestarts++;
        }
        if (host.node.logStartOffset() > 0) {
            stats.snapshotLoads++;
        }
        afterNodeActivity(host);
    }

    private void send(RaftMessage message) {
        if (random.nextDouble() < faults.dropRate()) {
            stats.dropped++;
            return;
        }
        if (message instanceof RaftMessage.FetchSnapshotResponse chunk
                && chunk.length() > 0
                && random.nextDouble() < faults.corruptChunkRate()) {
            // the wire's CRC would catch this first in production; here the snapshot's own CRC must
            byte[] bytes = chunk.bytes();
            bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
            message = new RaftMessage.FetchSnapshotResponse(
                    chunk.source(),
                    chunk.destination(),
                    chunk.epoch(),
                    chunk.error(),
                    chunk.leaderId(),
                    chunk.snapshotId(),
                    chunk.size(),
                    chunk.crc32c(),
                    chunk.position(),
                    bytes);
            stats.corruptedChunks++;
        }
        if (message instanceof RaftMessage.FetchResponse response && response.divergingEpoch() != null) {
            stats.divergences++;
        }
        if (message instanceof RaftMessage.FetchSnapshotResponse response
                && response.error() == RaftMessage.FetchError.SNAPSHOT_NOT_FOUND) {
            stats.snapshotsReplacedMidDownload++;
        }
        schedule(1 + random.nextInt(faults.maxDelayMs()), new Deliver(message));
        if (random.nextDouble() < faults.duplicateRate()) {
            stats.duplicated++;
            schedule(1 + random.nextInt(faults.maxDelayMs()), new Deliver(message));
        }
    }

    private void schedule(long delayMs, Object what) {
        queue.add(new Event(nowMs + delayMs, seq++, what));
    }

    private void step(Event event) {
        if (++events > MAX_EVENTS) {
            fail("event budget of " + MAX_EVENTS + " exhausted");
        }
        nowMs = event.timeMs;
        Object what = event.what;
        try {
            if (what instanceof Deliver deliver) {
                Host to = hosts.get(deliver.message().destination());
                Host from = hosts.get(deliver.message().source());
                if (to.node == null || blocked(from, to)) {
                    return;
                }
                record(event);
                long startBefore = to.node.logStartOffset();
                try {
                    to.node.handle(deliver.message(), nowMs);
                } catch (SimDisk.PowerLoss lost) {
                    powerLoss(to, lost);
                    checkInvariants();
                    return;
                }
                if (deliver.message() instanceof RaftMessage.FetchSnapshotResponse
                        && to.node.logStartOffset() > startBefore) {
                    stats.snapshotsInstalled++;
                }
                afterNodeActivity(to);
            } else if (what instanceof Tick tick) {
                Host host = hosts.get(tick.node());
                if (host.node == null || host.scheduledTickMs != nowMs) {
                    return; // superseded by an earlier tick, or the node crashed since
                }
                host.scheduledTickMs = Long.MAX_VALUE;
                host.node.tick(nowMs);
                afterNodeActivity(host);
            } else if (what instanceof Chaos) {
                if (chaosOn) {
                    chaos();
                    schedule(CHAOS_INTERVAL_MS, what);
                }
            }
        } catch (SimulationFailure failure) {
            throw failure;
        } catch (RuntimeException e) {
            throw fail("node threw " + e);
        }
        checkInvariants();
    }

    private boolean blocked(Host from, Host to) {
        if (from.side == to.side) {
            return false;
        }
        return switch (partitionDirection) {
            case BOTH -> true;
            case FROM_ISLAND -> from.side == 1;
            case TO_ISLAND -> to.side == 1;
        };
    }

    private void afterNodeActivity(Host host) {
        applyCommitted(host);
        if (host.node.snapshotDue(nowMs) && host.applied.size() > host.node.logStartOffset()) {
            try {
                host.node.createSnapshot(host.applied.size(), encode(host.applied), nowMs);
                stats.snapshotsTaken++;
            } catch (SimDisk.PowerLoss lost) {
                powerLoss(host, lost);
                return;
            }
        }
        long deadlineMs = host.node.nextDeadlineMs();
        if (deadlineMs != Long.MAX_VALUE && deadlineMs < host.scheduledTickMs) {
            host.scheduledTickMs = Math.max(deadlineMs, nowMs);
            queue.add(new Event(host.scheduledTickMs, seq++, new Tick(host.id)));
        }
    }

    /**
     * The node's state machine catches up with its high watermark: from its latest snapshot if its log starts
     * beyond what it applied (restart on a truncated log, or a snapshot downloaded from the leader), then from
     * its log.
     */
    private void applyCommitted(Host host) {
        RaftNode node = host.node;
        if (host.applied.size() < node.logStartOffset()) {
            host.applied = decode(node.readLatestSnapshot());
            if (host.applied.size() != node.logStartOffset()) {
                fail("node " + host.id + " snapshot holds " + host.applied.size() + " entries but its log starts at "
                        + node.logStartOffset());
            }
        }
        for (long offset = host.applied.size(); offset < node.highWatermark(); offset++) {
            host.applied.add(node.entry(offset));
        }
    }

    private void powerLoss(Host host, SimDisk.PowerLoss lost) {
        note("node " + host.id + ": " + lost.getMessage());
        // what the node committed (and acknowledged) in this step happened before the power went
        recordCommitted(host);
        stats.snapshotCrashes++;
        crash(host.id);
    }

    private void chaos() {
        List<Host> up = hosts.values().stream().filter(h -> h.node != null).toList();
        List<Host> down = hosts.values().stream().filter(h -> h.node == null).toList();
        if (!up.isEmpty() && random.nextDouble() < faults.snapshotCrashRate()) {
            SimDisk.SnapshotCrash[] where = SimDisk.SnapshotCrash.values();
            armSnapshotCrash(up.get(random.nextInt(up.size())).id, where[random.nextInt(where.length)]);
        }
        if (random.nextDouble() < faults.proposeRate()) {
            RaftNode leader = currentLeader();
            int target = leader != null && random.nextInt(5) > 0 ? leader.nodeId() : 1 + random.nextInt(hosts.size());
            propose(target, "p" + (proposals++) + "-to-" + target);
        }
        if (!up.isEmpty() && random.nextDouble() < faults.crashRate()) {
            crash(up.get(random.nextInt(up.size())).id);
        }
        if (!down.isEmpty() && random.nextDouble() < faults.restartRate()) {
            restart(down.get(random.nextInt(down.size())).id);
        }
        boolean partitioned = hosts.values().stream().anyMatch(h -> h.side != 0);
        if (!partitioned && random.nextDouble() < faults.partitionRate()) {
            Set<Integer> island = new TreeSet<>();
            for (Host host : hosts.values()) {
                if (random.nextBoolean()) {
                    island.add(host.id);
                }
            }
            Direction[] directions = Direction.values();
            partition(island, random.nextInt(3) == 0 ? directions[random.nextInt(directions.length)] : Direction.BOTH);
        } else if (partitioned && random.nextDouble() < faults.healRate()) {
            healPartition();
        }
    }

    // ---------------------------------------------------------------- invariants

    private void checkInvariants() {
        for (Host host : hosts.values()) {
            RaftNode node = host.node;
            if (node == null) {
                continue;
            }
            if (node.epoch() < host.highestEpoch) {
                fail("node " + host.id + " epoch went back from " + host.highestEpoch + " to " + node.epoch());
            }
            host.highestEpoch = node.epoch();
            if (node.isLeader()) {
                Integer previous = leaderOfEpoch.putIfAbsent(node.epoch(), host.id);
                if (previous == null) {
                    verifySnapshot(host);
                    stats.elections++;
                    checkLeaderHoldsCommitted(node);
                } else if (previous != host.id) {
                    fail("two leaders in epoch " + node.epoch() + ": " + previous + " and " + host.id);
                }
            }
            verifySnapshot(host);
            recordCommitted(host);
        }
        for (Acked ack : acked) {
            if (ack.offset() >= committed.size()
                    || !Arrays.equals(committed.get((int) ack.offset()).payload(), ack.payload())) {
                fail("acknowledged proposal at " + ack.offset() + " is not committed as acknowledged");
            }
        }
        acked.clear();
    }

    /** The node's high watermark never goes back, and what it holds below it is the committed record. */
    private void recordCommitted(Host host) {
        RaftNode node = host.node;
        long hw = node.highWatermark();
        if (hw < host.checkedHighWatermark) {
            fail("node " + host.id + " high watermark went back from " + host.checkedHighWatermark + " to " + hw);
        }
        for (long offset = Math.max(host.checkedHighWatermark, node.logStartOffset()); offset < hw; offset++) {
            LogEntry entry = node.entry(offset);
            if (offset < committed.size()) {
                if (!committed.get((int) offset).equals(entry)) {
                    fail("committed entry " + offset + " was " + committed.get((int) offset) + ", node " + host.id
                            + " has " + entry + " below its high watermark");
                }
            } else if (offset == committed.size()) {
                committed.add(entry);
            } else {
                fail("node " + host.id + " skipped committed entries " + committed.size() + ".." + offset);
            }
        }
        host.checkedHighWatermark = hw;
    }

    /** Leader completeness: the first time we see a leader of an epoch, its log must hold every committed entry. */
    private void checkLeaderHoldsCommitted(RaftNode leader) {
        // below its log start the leader's snapshot stands in, and verifySnapshot checked it against the record
        for (int offset = (int) leader.logStartOffset(); offset < committed.size(); offset++) {
            if (offset >= leader.endOffset() || !leader.entry(offset).equals(committed.get(offset))) {
                fail("leader " + leader.nodeId() + " of epoch " + leader.epoch() + " lacks committed entry "
                        + committed.get(offset));
            }
        }
    }

    /**
     * A snapshot must be exactly the committed prefix it names, no longer than the node's high watermark, with
     * the id of that prefix's last entry. Checked once per snapshot and node (taken or downloaded).
     */
    private void verifySnapshot(Host host) {
        SnapshotInfo snapshot = host.node.latestSnapshot().orElse(null);
        if (snapshot == null || snapshot.equals(host.verifiedSnapshot)) {
            return;
        }
        long end = snapshot.endOffset();
        if (end > host.node.highWatermark() || end != host.node.logStartOffset()) {
            fail("node " + host.id + " snapshot " + snapshot + " is beyond its high watermark "
                    + host.node.highWatermark() + " or not at its log start " + host.node.logStartOffset());
        }
        List<LogEntry> content = decode(host.node.readLatestSnapshot());
        if (content.size() != end) {
            fail("node " + host.id + " snapshot " + snapshot + " holds " + content.size() + " entries");
        }
        for (int offset = 0; offset < end; offset++) {
            if (offset == committed.size()) {
                committed.add(content.get(offset)); // below the node's high watermark, so committed
            } else if (!content.get(offset).equals(committed.get(offset))) {
                fail("node " + host.id + " snapshot " + snapshot + " has " + content.get(offset) + " at " + offset
                        + " where " + committed.get(offset) + " was committed");
            }
        }
        if (content.get((int) end - 1).epoch() != snapshot.id().epoch()) {
            fail("node " + host.id + " snapshot " + snapshot + " is named for epoch "
                    + snapshot.id().epoch() + " but its last entry is " + content.get((int) end - 1));
        }
        host.verifiedSnapshot = snapshot;
    }

    /** The simulated state machine's snapshot: every committed entry, in order. */
    static byte[] encode(List<LogEntry> entries) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(entries.size());
            for (LogEntry entry : entries) {
                out.writeInt(entry.epoch());
                out.writeLong(entry.offset());
                out.writeByte(entry.kind().code());
                out.writeInt(entry.payloadSize());
                out.write(entry.payload());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static List<LogEntry> decode(byte[] content) {
        ByteBuffer in = ByteBuffer.wrap(content);
        int count = in.getInt();
        List<LogEntry> entries = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int epoch = in.getInt();
            long offset = in.getLong();
            LogEntry.Kind kind = LogEntry.Kind.forCode(in.get());
            byte[] payload = new byte[in.getInt()];
            in.get(payload);
            entries.add(new LogEntry(epoch, offset, kind, payload));
        }
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("trailing bytes in a simulated snapshot");
        }
        return entries;
    }

    // ---------------------------------------------------------------- failure reporting

    private void note(String text) {
        record(new Event(nowMs, -1, new Note(text)));
    }

    private void record(Event event) {
        trace[(int) (traced++ % TRACE_SIZE)] = event;
    }

    SimulationFailure fail(String reason) {
        StringBuilder text = new StringBuilder();
        text.append("Simulation failed: ")
                .append(reason)
                .append('\n')
                .append("  seed=")
                .append(seed)
                .append(" voters=")
                .append(voterIds.size())
                .append(" nodes=")
                .append(hosts.size())
                .append(" t=")
                .append(nowMs)
                .append("ms events=")
                .append(events)
                .append("; replay with -Dsim.seed=")
                .append(seed)
                .append(" -Dsim.voters=")
                .append(voterIds.size())
                .append('\n');
        text.append("  ").append(config).append('\n');
        for (Host host : hosts.values()) {
            text.append("  ")
                    .append(host.node == null ? "node " + host.id + " DOWN" : host.node.toString())
                    .append(" side=")
                    .append(host.side)
                    .append('\n');
        }
        text.append("  committed entries: ").append(committed.size()).append("; last events:\n");
        for (int i = 0; i < TRACE_SIZE; i++) {
            Object event = trace[(int) ((traced + i) % TRACE_SIZE)];
            if (event != null) {
                text.append("    ").append(event).append('\n');
            }
        }
        throw new SimulationFailure(seed, !LIVENESS.matcher(reason).lookingAt(), text.toString());
    }

    /** The reasons that say the quorum got stuck or the harness failed; every other reason is a safety rule. */
    private static final java.util.regex.Pattern LIVENESS = java.util.regex.Pattern.compile(
            "no progress |no leader |event budget |node \\d+ failed to start|node threw ");

    /** A violated invariant or a stuck quorum; the message names the seed and shows the last events. */
    static final class SimulationFailure extends AssertionError {

        private static final long serialVersionUID = 1L;

        final long seed;
        /** A broken safety rule (committed entries lost or changed, two leaders, epochs back); else liveness. */
        final boolean safety;

        SimulationFailure(long seed, boolean safety, String message) {
            super(message);
            this.seed = seed;
            this.safety = safety;
        }
    }
}
