package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Transactional offset commits under coordinator failovers, on one thread with a fake clock and every choice drawn
 * from one seeded {@link Random}. Two transactional producers commit offsets of group {@value #GROUP} in
 * transactions that they then commit or abort (abort whenever TxnOffsetCommit failed); the transaction
 * coordinator's part is modelled: it appends the producer's marker, rewrites it if a failover lost it, and once it
 * is durable tells the group coordinator ({@link GroupCoordinator#completeTransaction}) after a random delay (in
 * marker order per producer), the producer starting its next transaction meanwhile. An admin commits ordinary offsets and now and then deletes the
 * group. The offsets partition is a replicated log whose high watermark trails, and a failover keeps the durable
 * prefix and a random part of the rest.
 *
 * <p>Checked after every step in which the coordinator serves and has been told of every durable marker: what
 * OffsetFetch serves, and which partitions requireStable calls unstable, are exactly what a reference reading of the
 * log's durable prefix gives (ordinary records latest wins, a tombstone drops a partition's pending offsets, a
 * commit marker applies its producer's last offset per partition unless an ordinary record came later).
 */
final class TransactionalOffsetsSimulation {

    static final String GROUP = "g";
    static final String TOPIC = "t";
    static final int PARTITIONS = 3;
    static final long COMMIT_TIMEOUT_MS = 5_000;

    record Outcome(long seed, int failovers, int committedTransactions, int abortedTransactions, int checks) {}

    /**
     * A record of the offsets partition: data (ordinary, or of producer {@code producerId}) or a marker, with where its
     * batch starts: a batch is replicated and truncated whole, as Kafka's replicas fetch whole batches.
     */
    private record Rec(
            byte[] key,
            byte @Nullable [] value,
            long producerId,
            boolean transactional,
            boolean marker,
            boolean commit,
            int batchStart) {}

    private final long seed;
    private final Random random;
    private final List<Rec> entries = new ArrayList<>();
    private long highWatermark;
    private int leaderEpoch;
    private long nowMs = 1_000;

    private record Waiter(OffsetsLog.Appended appended, Runnable onChange, long deadlineMs) {}

    private final List<Waiter> waiters = new ArrayList<>();
    private GroupCoordinator coordinator;
    private ManualShardLoops loops;
    private final List<String> trace = new ArrayList<>();

    private enum Phase {
        IDLE,
        COMMITTING,
        ENDING,
        MARKER_WRITTEN
    }

    private final class Producer {
        final long id;
        Phase phase = Phase.IDLE;
        long request = -1;
        boolean commit;
        long markerOffset = -1;
        long nextMs;
        long lastReportMs;

        Producer(long id) {
            this.id = id;
        }
    }

    private record Report(long atMs, long producerId, boolean commit, long markerOffset) {}

    private final List<Producer> producers = List.of(new Producer(100), new Producer(101));
    private final List<Report> reports = new ArrayList<>();
    private long nextRequest;
    private int failovers;
    private int committed;
    private int aborted;
    private int checks;

    TransactionalOffsetsSimulation(long seed) {
        this.seed = seed;
        this.random = new Random(seed);
        startCoordinator();
    }

    // ------------------------------------------------------------------ the offsets partition

    private OffsetsLog view(int epoch) {
        return new OffsetsLog() {
            @Override
            public Appended append(int partition, List<Entry> records) {
                return write(records, -1, false);
            }

            @Override
            public Appended appendTransactional(
                    int partition, long producerId, short producerEpoch, List<Entry> records) {
                return write(records, producerId, true);
            }

            private Appended write(List<Entry> records, long producerId, boolean transactional) {
                if (epoch != leaderEpoch) {
                    throw new AppendFailedException(GroupError.NOT_COORDINATOR, "epoch over", null);
                }
                int start = entries.size();
                for (Entry record : records) {
                    entries.add(new Rec(record.key(), record.value(), producerId, transactional, false, false, start));
                }
                return new Appended(entries.size(), epoch);
            }

            @Override
            public Optional<Position> position(int partition) {
                return epoch != leaderEpoch
                        ? Optional.empty()
                        : Optional.of(new Position(highWatermark, entries.size(), epoch));
            }

            @Override
            public void awaitReplication(int partition, Appended appended, Runnable onChange) {
                waiters.add(new Waiter(appended, onChange, nowMs + COMMIT_TIMEOUT_MS));
                wake();
            }

            @Override
            public long replay(int partition, RecordConsumer consumer) {
                if (epoch != leaderEpoch) {
                    return 0;
                }
                for (int i = 0; i < entries.size(); i++) {
                    Rec r = entries.get(i);
                    if (r.marker()) {
                        consumer.acceptMarker(i, r.producerId(), r.commit());
                    } else if (r.transactional()) {
                        consumer.acceptTransactional(i, r.producerId(), r.key(), r.value());
                    } else {
                        consumer.accept(i, r.key(), r.value());
                    }
                }
                return entries.size();
            }
        };
    }

    private void wake() {
        boolean woke = true;
        while (woke) {
            woke = false;
            for (int i = 0; i < waiters.size(); i++) {
                Waiter w = waiters.get(i);
                if (w.appended().leaderEpoch() != leaderEpoch
                        || highWatermark >= w.appended().endOffset()
                        || nowMs >= w.deadlineMs()) {
                    waiters.remove(i);
                    w.onChange().run();
                    woke = true;
                    break;
                }
            }
        }
    }

    private void failover() {
        long keep = batchBoundary(highWatermark
                + (entries.size() > highWatermark ? random.nextInt((int) (entries.size() - highWatermark) + 1) : 0));
        trace("failover keeps " + keep + " of " + entries.size() + " (high watermark " + highWatermark + ")");
        entries.subList((int) keep, entries.size()).clear();
        leaderEpoch++;
        failovers++;
        wake();
        startCoordinator();
    }

    /** The start of the batch that holds offset {@code offset}, or the log end. */
    private long batchBoundary(long offset) {
        return offset >= entries.size()
                ? entries.size()
                : entries.get((int) offset).batchStart();
    }

    /** Where the batch that starts at {@code offset} ends. */
    private long nextBatchEnd(long offset) {
        long end = offset + 1;
        while (end < entries.size() && entries.get((int) end).batchStart() == offset) {
            end++;
        }
        return end;
    }

    private void startCoordinator() {
        if (coordinator != null) {
            loops.runAll();
            coordinator.close();
            for (Producer p : producers) {
                if (p.phase == Phase.COMMITTING) {
                    endLater(p, false); // its connection went down with the node: the producer aborts
                }
            }
        }
        loops = new ManualShardLoops(() -> nowMs);
        coordinator = new GroupCoordinator(
                new GroupCoordinator.Config(1, 0, 1_000, 60_000, 100),
                view(leaderEpoch),
                () -> nowMs,
                () -> "id",
                loops);
        coordinator.setFaultHandler((what, e) -> {
            if (e instanceof Error error) {
                throw error;
            }
            fail(what + " failed: " + e);
        });
        coordinator.startup();
        loops.runAll();
    }

    // ------------------------------------------------------------------ run

    Outcome run(long durationMs) {
        long end = nowMs + durationMs;
        while (nowMs < end) {
            step(true);
        }
        // Settle: everything replicates, every transaction ends and is reported.
        for (int i = 0; i < 2_000 && !quiet(); i++) {
            highWatermark = entries.size();
            step(false);
        }
        if (!quiet()) {
            fail("transactions did not end after the faults stopped");
        }
        check();
        return new Outcome(seed, failovers, committed, aborted, checks);
    }

    private boolean quiet() {
        return reports.isEmpty()
                && producers.stream().allMatch(p -> p.phase == Phase.IDLE)
                && coordinator.isActive(0)
                && highWatermark == entries.size();
    }

    private void step(boolean load) {
        nowMs += 10;
        if (random.nextInt(3) == 0 && highWatermark < entries.size()) {
            // The followers fetch whole batches: the high watermark ends one.
            long to = Math.min(entries.size(), highWatermark + 1 + random.nextInt(3));
            long start = batchBoundary(to);
            highWatermark = start > highWatermark ? start : nextBatchEnd(highWatermark);
        }
        wake();
        loops.runDue();
        if (load && random.nextInt(1_500) == 0) {
            failover();
        }
        for (Producer p : producers) {
            act(p, load);
        }
        if (load && coordinator.isActive(0)) {
            int roll = random.nextInt(100);
            if (roll < 8) {
                plainCommit();
            } else if (roll == 8 && random.nextInt(5) == 0) {
                trace("admin deletes the group");
                coordinator.deleteGroup(GROUP, error -> trace("delete answered " + error));
            }
        }
        deliverReports();
        loops.runAll();
        if (reports.isEmpty() && coordinator.isActive(0)) {
            check();
        }
    }

    private void plainCommit() {
        int partition = random.nextInt(PARTITIONS);
        long value = random.nextInt(1_000);
        trace("admin commits " + partition + "=" + value);
        coordinator.commitOffsets(
                GROUP,
                "",
                null,
                -1,
                Map.of(new TopicPartitionKey(TOPIC, partition), new OffsetAndMetadata(value, -1, "", 1)),
                error -> {});
    }

    private void act(Producer p, boolean load) {
        switch (p.phase) {
            case IDLE -> {
                if (load && nowMs >= p.nextMs && coordinator.isActive(0)) {
                    txnCommit(p);
                }
            }
            case ENDING -> writeMarker(p);
            case MARKER_WRITTEN -> {
                boolean lost = p.markerOffset >= entries.size()
                        || !entries.get((int) p.markerOffset).marker()
                        || entries.get((int) p.markerOffset).producerId() != p.id;
                if (lost) {
                    trace(p.id + "'s marker was lost in a failover; written again");
                    p.phase = Phase.ENDING;
                    writeMarker(p);
                } else if (highWatermark > p.markerOffset) {
                    // Late, but in marker order for the producer: the contract of completeTransaction.
                    p.lastReportMs = Math.max(p.lastReportMs, nowMs + random.nextInt(300));
                    reports.add(new Report(p.lastReportMs, p.id, p.commit, p.markerOffset));
                    p.phase = Phase.IDLE;
                    p.nextMs = nowMs + random.nextInt(200);
                }
            }
            default -> {}
        }
    }

    private void txnCommit(Producer p) {
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        int count = 1 + random.nextInt(PARTITIONS);
        for (int i = 0; i < count; i++) {
            offsets.put(
                    new TopicPartitionKey(TOPIC, random.nextInt(PARTITIONS)),
                    new OffsetAndMetadata(random.nextInt(1_000), -1, "", 1));
        }
        long id = nextRequest++;
        p.request = id;
        p.phase = Phase.COMMITTING;
        trace(p.id + " TxnOffsetCommit " + offsets);
        coordinator.commitTransactionalOffsets(GROUP, p.id, (short) 0, "", null, -1, offsets, error -> {
            if (p.request != id || p.phase != Phase.COMMITTING) {
                return;
            }
            trace(p.id + " TxnOffsetCommit answered " + error);
            endLater(p, error == GroupError.NONE && random.nextBoolean());
        });
    }

    private void endLater(Producer p, boolean commit) {
        p.commit = commit;
        p.phase = Phase.ENDING;
        p.request = -1;
    }

    private void writeMarker(Producer p) {
        entries.add(new Rec(new byte[0], null, p.id, true, true, p.commit, entries.size()));
        p.markerOffset = entries.size() - 1L;
        p.phase = Phase.MARKER_WRITTEN;
        if (p.commit) {
            committed++;
        } else {
            aborted++;
        }
        trace(p.id + " marker " + (p.commit ? "COMMIT" : "ABORT") + " at " + p.markerOffset);
    }

    private void deliverReports() {
        for (Iterator<Report> it = reports.iterator(); it.hasNext(); ) {
            Report r = it.next();
            if (nowMs >= r.atMs()) {
                it.remove();
                trace("coordinator told: " + r.producerId() + " ended at " + r.markerOffset());
                coordinator.completeTransaction(0, r.producerId(), r.commit(), r.markerOffset());
            }
        }
    }

    // ------------------------------------------------------------------ the reference reading and the check

    private void check() {
        checks++;
        Map<Integer, long[]> expected = new TreeMap<>(); // partition -> {offset, record offset}
        Map<Long, Map<Integer, Long>> pendingValue = new HashMap<>(); // producer -> partition -> last offset
        Map<Long, Map<Integer, Long>> pendingAt = new HashMap<>();
        for (int i = 0; i < highWatermark; i++) {
            Rec r = entries.get(i);
            if (r.marker()) {
                Map<Integer, Long> values = pendingValue.remove(r.producerId());
                Map<Integer, Long> at = pendingAt.remove(r.producerId());
                if (values != null && r.commit()) {
                    for (Map.Entry<Integer, Long> e : values.entrySet()) {
                        long[] current = expected.get(e.getKey());
                        long recordOffset = at.get(e.getKey());
                        if (current == null || recordOffset > current[1]) {
                            expected.put(e.getKey(), new long[] {e.getValue(), recordOffset});
                        }
                    }
                }
                continue;
            }
            if (!(GroupRecords.readKey(r.key()) instanceof GroupRecords.OffsetKey key)) {
                continue; // group metadata
            }
            if (r.transactional()) {
                long value = GroupRecords.readOffsetValue(r.value()).offset();
                pendingValue
                        .computeIfAbsent(r.producerId(), x -> new HashMap<>())
                        .put(key.partition(), value);
                pendingAt.computeIfAbsent(r.producerId(), x -> new HashMap<>()).put(key.partition(), (long) i);
            } else if (r.value() == null) {
                expected.remove(key.partition());
                pendingValue.values().forEach(m -> m.remove(key.partition()));
                pendingAt.values().forEach(m -> m.remove(key.partition()));
            } else {
                expected.put(
                        key.partition(),
                        new long[] {GroupRecords.readOffsetValue(r.value()).offset(), i});
            }
        }
        Set<Integer> expectedUnstable = new TreeSet<>();
        pendingValue.values().forEach(m -> expectedUnstable.addAll(m.keySet()));

        List<TopicPartitionKey> all = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(new TopicPartitionKey(TOPIC, p));
        }
        List<GroupApi.FetchResult> plain = new ArrayList<>();
        List<GroupApi.FetchResult> stable = new ArrayList<>();
        coordinator.fetchOffsets(GROUP, null, -1, all, false, plain::add);
        coordinator.fetchOffsets(GROUP, null, -1, all, true, stable::add);
        loops.runAll();
        Map<Integer, Long> served = new TreeMap<>();
        plain.get(0).offsets().forEach((tp, o) -> served.put(tp.partition(), o.offset()));
        Map<Integer, Long> wanted = new TreeMap<>();
        expected.forEach((p, v) -> wanted.put(p, v[0]));
        if (!served.equals(wanted)) {
            fail("OffsetFetch serves " + served + ", the durable log says " + wanted);
        }
        Set<Integer> unstable = new TreeSet<>();
        stable.get(0).unstable().forEach(tp -> unstable.add(tp.partition()));
        if (!unstable.equals(expectedUnstable)) {
            fail("requireStable calls " + unstable + " unstable, the durable log has pending offsets for "
                    + expectedUnstable);
        }
    }

    private void trace(String event) {
        trace.add(nowMs + "ms " + event);
        if (trace.size() > 40) {
            trace.remove(0);
        }
    }

    private void fail(String what) {
        throw new CoordinatorSimulation.Violation("seed " + seed + " (replay with -Dsim.seed=" + seed + "): " + what
                + "\nlast events:\n  " + String.join("\n  ", trace));
    }

    void close() {
        coordinator.close();
    }
}
