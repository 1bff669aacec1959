package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.TreeMap;

/**
 * The production {@link GroupCoordinator} with consumers following the classic protocol, on one thread with a
 * fake clock, every choice drawn from one {@link Random} seeded by the run: a seed replays a run exactly. The
 * coordinator's shard loops are {@link ManualShardLoops} run by this thread: every request, replication callback
 * and tick is a task the simulation runs at a point it decides, and the tick comes due on the fake clock.
 *
 * <p>The offsets partition is a model of a replicated log: the leader appends, its high watermark trails by a
 * random amount, and the coordinator moves (a failover) to a replica that holds the durable prefix and a random
 * part of the rest, losing the remainder; the old coordinator is closed and a new one loads the new leader's log.
 * Consumers join (through MEMBER_ID_REQUIRED), sync (the leader assigns the topic's partitions round-robin),
 * heartbeat, commit increasing offsets, leave, crash and pause past their session timeout.
 *
 * <p>Every commit sends a larger offset than any sent before for its partition, so the log holds them in
 * increasing order. Checked after every step: no request is answered twice; OffsetFetch never goes backwards and never loses an
 * acknowledged commit, across failovers; a member in a stable generation holds exactly what that generation's
 * leader assigned it. At the end, after the faults stop: every live member is stable in one generation of its
 * group, with the topic's partitions split between them, and commits again.
 */
final class CoordinatorSimulation {

    static final String TOPIC = "t";
    static final int TOPIC_PARTITIONS = 4;
    static final int SESSION_TIMEOUT_MS = 3_000;
    static final int REBALANCE_TIMEOUT_MS = 5_000;
    static final long COMMIT_TIMEOUT_MS = 5_000;

    /** An invariant did not hold; the message names the seed and the last events. */
    static final class Violation extends AssertionError {
        Violation(String message) {
            super(message);
        }
    }

    /**
     * What a run did, so that a test can show its faults really happened; {@code history} digests every record
     * appended and the order requests were answered in, so that two runs of a seed can be shown to be the same.
     */
    record Outcome(
            long seed,
            int failovers,
            int crashes,
            int pauses,
            int leaves,
            int acknowledgedCommits,
            int stableGenerations,
            long history) {}

    // ------------------------------------------------------------------ the offsets partition

    /** One partition replicated over a few nodes, as the coordinator sees it through its leader. */
    private final class ReplicatedLog {
        final List<OffsetsLog.Entry> entries = new ArrayList<>();
        /** Per entry, the producer whose transactional batch wrote it, or -1 for an ordinary one. */
        final List<Long> producers = new ArrayList<>();

        long highWatermark;
        int leaderEpoch;
        final List<Waiter> waiters = new ArrayList<>();

        record Waiter(OffsetsLog.Appended appended, Runnable onChange, long deadlineMs) {}

        /** What the leader of {@code epoch} offers its coordinator; dead once the epoch is over. */
        OffsetsLog view(int epoch) {
            return new OffsetsLog() {
                @Override
                public Appended append(int partition, List<Entry> records) {
                    if (epoch != leaderEpoch) {
                        throw new AppendFailedException(
                                GroupError.NOT_COORDINATOR, "leader epoch " + epoch + " is over", null);
                    }
                    return write(records, -1);
                }

                @Override
                public Appended appendTransactional(
                        int partition, long producerId, short producerEpoch, List<Entry> records) {
                    if (epoch != leaderEpoch) {
                        throw new AppendFailedException(
                                GroupError.NOT_COORDINATOR, "leader epoch " + epoch + " is over", null);
                    }
                    return write(records, producerId);
                }

                private Appended write(List<Entry> records, long producerId) {
                    entries.addAll(records);
                    records.forEach(r -> producers.add(producerId));
                    for (Entry record : records) {
                        digest(java.util.Arrays.hashCode(record.key()));
                        digest(record.value() == null ? -1 : java.util.Arrays.hashCode(record.value()));
                    }
                    return new Appended(entries.size(), epoch);
                }

                @Override
                public Optional<Position> position(int partition) {
                    return epoch != leaderEpoch
                            ? Optional.empty()
                            : Optional.of(new Position(
                                    lyingHighWatermark ? entries.size() : highWatermark, entries.size(), epoch));
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
                        if (producers.get(i) < 0) {
                            consumer.accept(
                                    i, entries.get(i).key(), entries.get(i).value());
                        } else {
                            consumer.acceptTransactional(
                                    i,
                                    producers.get(i),
                                    entries.get(i).key(),
                                    entries.get(i).value());
                        }
                    }
                    return entries.size();
                }
            };
        }

        /** The followers fetched some of what the leader has. */
        void replicate() {
            if (highWatermark < entries.size()) {
                highWatermark = Math.min(entries.size(), highWatermark + 1 + random.nextInt(3));
            }
            wake();
        }

        /**
         * The leader is gone; a follower that has the durable prefix and some of the rest leads a new epoch and
         * loses whatever it did not have.
         */
        void failover() {
            long keep = highWatermark
                    + (entries.size() > highWatermark ? random.nextInt((int) (entries.size() - highWatermark) + 1) : 0);
            trace("failover: epoch " + (leaderEpoch + 1) + " keeps " + keep + " of " + entries.size()
                    + " records (high watermark " + highWatermark + ")");
            entries.subList((int) keep, entries.size()).clear();
            producers.subList((int) keep, producers.size()).clear();
            leaderEpoch++;
            wake();
        }

        /** Runs the waiters whose condition holds (durable, epoch over, or timed out), in registration order. */
        void wake() {
            boolean woke = true;
            while (woke) {
                woke = false;
                for (int i = 0; i < waiters.size(); i++) {
                    Waiter w = waiters.get(i);
                    long reported = lyingHighWatermark ? entries.size() : highWatermark;
                    if (w.appended().leaderEpoch() != leaderEpoch
                            || reported >= w.appended().endOffset()
                            || nowMs >= w.deadlineMs()) {
                        waiters.remove(i);
                        w.onChange().run();
                        woke = true;
                        break;
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------ consumers

    private enum MemberState {
        IDLE,
        JOINING,
        SYNCING,
        STABLE,
        CRASHED
    }

    private final class Consumer {
        final String group;
        final String clientId;
        String memberId = "";
        MemberState state = MemberState.IDLE;
        int generation = -1;
        boolean leader;
        List<String> members = List.of();
        List<Integer> assignment = List.of();
        long pausedUntilMs;
        long nextActionMs;
        /** The JoinGroup or SyncGroup it waits for; answers to any other are stale and dropped. */
        long inFlight = -1;

        Consumer(String group, String clientId) {
            this.group = group;
            this.clientId = clientId;
        }

        boolean busy() {
            return state == MemberState.JOINING || state == MemberState.SYNCING;
        }
    }

    private final long seed;
    private final boolean lyingHighWatermark;
    private final Random random;
    private final ReplicatedLog log = new ReplicatedLog();
    private final List<Consumer> consumers = new ArrayList<>();
    private final List<String> trace = new ArrayList<>();
    private GroupCoordinator coordinator;
    private ManualShardLoops loops;
    private long history = 17;
    private long nowMs = 1_000;
    private long nextId;
    private long nextRequest;
    /** Requests to the current coordinator not answered yet; those to a closed one went down with it. */
    private final Map<Long, String> outstanding = new TreeMap<>();

    private final java.util.Set<Long> answeredRequests = new java.util.HashSet<>();
    /** Per group and partition: the largest offset any consumer sent, so that every commit sends a larger one. */
    private final Map<String, Long> sent = new HashMap<>();
    /** Per group and partition: the largest commit acknowledged, and the last offset OffsetFetch served. */
    private final Map<String, Long> acknowledged = new HashMap<>();

    private final Map<String, Long> served = new HashMap<>();
    /** Per group and generation: what its leader assigned, member to partitions. */
    private final Map<String, Map<String, List<Integer>>> assignedInGeneration = new HashMap<>();

    private int failovers;
    private int crashes;
    private int pauses;
    private int leaves;
    private int acknowledgedCommits;
    private int stableGenerations;

    CoordinatorSimulation(long seed) {
        this(seed, false);
    }

    /**
     * @param lyingHighWatermark the log tells the coordinator that everything it appended is durable at once: the
     *                           rule the coordinator broke before issue 11's defect 6 was fixed, for the test that
     *                           shows the checker catches it
     */
    CoordinatorSimulation(long seed, boolean lyingHighWatermark) {
        this.lyingHighWatermark = lyingHighWatermark;
        this.seed = seed;
        this.random = new Random(seed);
        for (String group : List.of("alpha", "beta")) {
            for (int i = 0; i < 3; i++) {
                consumers.add(new Consumer(group, group + "-c" + i));
            }
        }
        startCoordinator();
    }

    private void startCoordinator() {
        if (coordinator != null) {
            // What the old leader's failure told its loops (its writes fail) runs; then its node is gone, and its
            // connections with it: what it still owed is lost.
            loops.runAll();
            coordinator.close();
            outstanding.clear();
            for (Consumer consumer : consumers) {
                if (consumer.busy()) {
                    consumer.inFlight = -1;
                    retryLater(consumer);
                }
            }
        }
        loops = new ManualShardLoops(() -> nowMs);
        coordinator = new GroupCoordinator(
                new GroupCoordinator.Config(1, 0, 1_000, 60_000, 100),
                log.view(log.leaderEpoch),
                () -> nowMs,
                () -> "id" + nextId++,
                loops);
        coordinator.setFaultHandler((what, e) -> {
            if (e instanceof Error error) {
                throw error; // a Violation found in a callback on the loop
            }
            fail(what + " failed: " + e);
        });
        coordinator.startup();
        loops.runAll();
    }

    // ------------------------------------------------------------------ run

    /** Runs {@code durationMs} of faults and load, then lets it settle and checks the end state. */
    Outcome run(long durationMs) {
        long faultsEndMs = nowMs + durationMs;
        while (nowMs < faultsEndMs) {
            step(true);
        }
        for (Consumer consumer : consumers) {
            if (consumer.state == MemberState.CRASHED) {
                restart(consumer);
            }
            consumer.pausedUntilMs = 0;
        }
        trace("faults over");
        long settleEndMs = nowMs + 30_000;
        while (nowMs < settleEndMs && !settled()) {
            step(false);
        }
        if (!settled()) {
            fail("the groups did not settle within 30 s after the faults stopped");
        }
        for (Consumer consumer : consumers) {
            commit(consumer);
        }
        for (int i = 0; i < 100 && !outstanding.isEmpty(); i++) {
            step(false);
        }
        if (!outstanding.isEmpty()) {
            fail("requests never answered: " + outstanding.values());
        }
        return new Outcome(seed, failovers, crashes, pauses, leaves, acknowledgedCommits, stableGenerations, history);
    }

    private void step(boolean faults) {
        nowMs += 10;
        log.wake();
        if (random.nextInt(3) == 0) {
            log.replicate();
        }
        loops.runDue(); // what replication progress queued, and the tick when it is due
        if (faults) {
            injectFault();
        }
        for (Consumer consumer : consumers) {
            act(consumer, faults);
        }
        checkOffsets();
    }

    private void injectFault() {
        int roll = random.nextInt(4_000);
        if (roll < 4) {
            failovers++;
            log.failover();
            startCoordinator();
        } else if (roll < 10) {
            Consumer victim = consumers.get(random.nextInt(consumers.size()));
            if (victim.state != MemberState.CRASHED) {
                crashes++;
                trace(victim.clientId + " crashes");
                victim.state = MemberState.CRASHED;
                victim.inFlight = -1;
                victim.nextActionMs = nowMs + 1_000 + random.nextInt(5_000);
            }
        } else if (roll < 16) {
            Consumer victim = consumers.get(random.nextInt(consumers.size()));
            if (victim.state != MemberState.CRASHED) {
                pauses++;
                victim.pausedUntilMs = nowMs + SESSION_TIMEOUT_MS / 2 + random.nextInt(SESSION_TIMEOUT_MS * 2);
                trace(victim.clientId + " pauses until " + victim.pausedUntilMs);
            }
        } else if (roll < 20) {
            Consumer victim = consumers.get(random.nextInt(consumers.size()));
            if (victim.state == MemberState.STABLE) {
                leaves++;
                leave(victim);
            }
        }
    }

    private void restart(Consumer consumer) {
        trace(consumer.clientId + " restarts");
        consumer.state = MemberState.IDLE;
        consumer.memberId = "";
        consumer.generation = -1;
        consumer.assignment = List.of();
    }

    private void act(Consumer consumer, boolean faults) {
        if (consumer.state == MemberState.CRASHED) {
            if (faults && nowMs >= consumer.nextActionMs) {
                restart(consumer);
            }
            return;
        }
        if (nowMs < consumer.pausedUntilMs || nowMs < consumer.nextActionMs || consumer.busy()) {
            return;
        }
        switch (consumer.state) {
            case IDLE -> join(consumer);
            case STABLE -> {
                heartbeat(consumer);
                if (consumer.state == MemberState.STABLE && random.nextInt(4) == 0) {
                    commit(consumer);
                }
                consumer.nextActionMs = nowMs + 200 + random.nextInt(400);
            }
            default -> {}
        }
    }

    /** Sends a request; its answer must come at most once, and exactly once unless its coordinator went away. */
    private long request(String what) {
        long id = nextRequest++;
        outstanding.put(id, what);
        return id;
    }

    private void answered(long id) {
        if (!answeredRequests.add(id)) {
            fail("request " + id + " answered twice");
        }
        digest(id);
        outstanding.remove(id);
    }

    /** As GroupHandler does: a coordinator that does not serve the shard (yet) answers before the coordinator. */
    private boolean reachable(Consumer consumer) {
        if (coordinator.isActive(0)) {
            return true;
        }
        retryLater(consumer);
        return false;
    }

    private List<Protocol> protocols() {
        return List.of(new Protocol("range", "range".getBytes(StandardCharsets.UTF_8)));
    }

    private void join(Consumer consumer) {
        if (!reachable(consumer)) {
            return;
        }
        consumer.state = MemberState.JOINING;
        long id = request(consumer.clientId + " JoinGroup");
        consumer.inFlight = id;
        coordinator.joinGroup(
                consumer.group,
                consumer.memberId,
                null,
                "consumer",
                protocols(),
                SESSION_TIMEOUT_MS,
                REBALANCE_TIMEOUT_MS,
                consumer.clientId,
                "/127.0.0.1",
                true,
                result -> {
                    answered(id);
                    if (consumer.inFlight == id) {
                        consumer.inFlight = -1;
                        onJoined(consumer, result);
                    }
                });
        loops.runAll();
    }

    private void onJoined(Consumer consumer, JoinResult result) {
        if (consumer.state != MemberState.JOINING) {
            return; // crashed meanwhile: the answer goes nowhere
        }
        switch (result.error()) {
            case MEMBER_ID_REQUIRED -> {
                consumer.memberId = result.memberId();
                consumer.state = MemberState.IDLE;
            }
            case NONE -> {
                consumer.memberId = result.memberId();
                consumer.generation = result.generation();
                consumer.leader = result.leaderId().equals(result.memberId());
                consumer.members = result.members().stream()
                        .map(GroupApi.JoinMember::memberId)
                        .toList();
                sync(consumer);
            }
            case UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID -> {
                consumer.memberId = "";
                retryLater(consumer);
            }
            default -> retryLater(consumer);
        }
    }

    private void retryLater(Consumer consumer) {
        consumer.state = MemberState.IDLE;
        consumer.nextActionMs = nowMs + 100 + random.nextInt(300);
    }

    private void sync(Consumer consumer) {
        consumer.state = MemberState.SYNCING;
        Map<String, byte[]> assignments = new HashMap<>();
        Map<String, List<Integer>> plan = new HashMap<>();
        if (consumer.leader) {
            List<String> members = new ArrayList<>(consumer.members);
            members.sort(String::compareTo);
            for (int p = 0; p < TOPIC_PARTITIONS; p++) {
                plan.computeIfAbsent(members.get(p % members.size()), m -> new ArrayList<>())
                        .add(p);
            }
            for (String member : members) {
                assignments.put(member, encode(plan.getOrDefault(member, List.of())));
            }
        }
        int generation = consumer.generation;
        long id = request(consumer.clientId + " SyncGroup " + generation);
        consumer.inFlight = id;
        coordinator.syncGroup(
                consumer.group, generation, consumer.memberId, null, "consumer", "range", assignments, result -> {
                    answered(id);
                    onSynced(consumer, generation, plan, result, consumer.inFlight == id);
                });
        loops.runAll();
    }

    private void onSynced(
            Consumer consumer, int generation, Map<String, List<Integer>> plan, SyncResult result, boolean current) {
        if (consumer.leader && result.error() == GroupError.NONE) {
            Map<String, List<Integer>> previous =
                    assignedInGeneration.putIfAbsent(consumer.group + "/" + generation, plan);
            if (previous == null) {
                stableGenerations++;
            }
        }
        if (!current || consumer.state != MemberState.SYNCING || consumer.generation != generation) {
            return;
        }
        consumer.inFlight = -1;
        if (result.error() != GroupError.NONE) {
            if (result.error() == GroupError.UNKNOWN_MEMBER_ID) {
                consumer.memberId = "";
            }
            retryLater(consumer);
            return;
        }
        consumer.assignment = decode(result.assignment());
        consumer.state = MemberState.STABLE;
        trace(consumer.clientId + " stable in generation " + generation + " with " + consumer.assignment);
        checkAssignment(consumer);
    }

    private void heartbeat(Consumer consumer) {
        if (!reachable(consumer)) {
            return;
        }
        GroupError error = heartbeat(consumer.group, consumer.memberId, consumer.generation);
        switch (error) {
            case NONE -> {}
            case REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION -> consumer.state = MemberState.IDLE;
            case UNKNOWN_MEMBER_ID -> {
                consumer.memberId = "";
                consumer.state = MemberState.IDLE;
            }
            default -> retryLater(consumer); // the coordinator moved or is loading
        }
    }

    /** A Heartbeat, answered once the loop ran it (at once here). */
    private GroupError heartbeat(String group, String memberId, int generation) {
        GroupError[] answer = new GroupError[1];
        coordinator.heartbeat(group, memberId, null, generation, error -> answer[0] = error);
        loops.runAll();
        if (answer[0] == null) {
            fail("Heartbeat of " + memberId + " not answered after its shard's loop ran");
        }
        return answer[0];
    }

    private void commit(Consumer consumer) {
        if (consumer.state != MemberState.STABLE || consumer.assignment.isEmpty() || !coordinator.isActive(0)) {
            return;
        }
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p : consumer.assignment) {
            long value = sent.merge(key(consumer.group, p), 1L + random.nextInt(5), Long::sum);
            offsets.put(new TopicPartitionKey(TOPIC, p), new OffsetAndMetadata(value, -1, null, -1));
        }
        long id = request(consumer.clientId + " OffsetCommit " + offsets.values());
        coordinator.commitOffsets(consumer.group, consumer.memberId, null, consumer.generation, offsets, error -> {
            answered(id);
            if (error == GroupError.NONE) {
                acknowledgedCommits++;
                for (Map.Entry<TopicPartitionKey, OffsetAndMetadata> e : offsets.entrySet()) {
                    acknowledged.merge(
                            key(consumer.group, e.getKey().partition()),
                            e.getValue().offset(),
                            Math::max);
                }
            }
        });
        loops.runAll();
    }

    private void leave(Consumer consumer) {
        if (!coordinator.isActive(0)) {
            return;
        }
        trace(consumer.clientId + " leaves");
        long id = request(consumer.clientId + " LeaveGroup");
        coordinator.leaveGroup(
                consumer.group, List.of(new LeaveMember(consumer.memberId, null)), result -> answered(id));
        loops.runAll();
        restart(consumer);
        consumer.nextActionMs = nowMs + 500 + random.nextInt(2_000);
    }

    // ------------------------------------------------------------------ invariants

    private static String key(String group, int partition) {
        return group + "/" + partition;
    }

    private void checkOffsets() {
        if (!coordinator.isActive(0)) {
            return;
        }
        for (String group : List.of("alpha", "beta")) {
            List<GroupApi.FetchResult> answer = new ArrayList<>();
            coordinator.fetchOffsets(group, null, -1, null, false, answer::add);
            loops.runAll();
            if (answer.size() != 1 || answer.get(0).error() != GroupError.NONE) {
                fail("OffsetFetch of " + group + " from the active coordinator answered " + answer);
            }
            Map<TopicPartitionKey, OffsetAndMetadata> fetched = answer.get(0).offsets();
            for (int p = 0; p < TOPIC_PARTITIONS; p++) {
                String key = key(group, p);
                OffsetAndMetadata offset = fetched.get(new TopicPartitionKey(TOPIC, p));
                long value = offset == null ? 0 : offset.offset();
                long before = served.getOrDefault(key, 0L);
                if (value < before) {
                    fail("OffsetFetch of " + key + " went back from " + before + " to " + value);
                }
                long acked = acknowledged.getOrDefault(key, 0L);
                if (value < acked) {
                    fail("OffsetFetch of " + key + " serves " + value + " below the acknowledged commit " + acked);
                }
                served.put(key, value);
            }
        }
    }

    private void checkAssignment(Consumer consumer) {
        Map<String, List<Integer>> plan = assignedInGeneration.get(consumer.group + "/" + consumer.generation);
        if (plan != null && !plan.getOrDefault(consumer.memberId, List.of()).equals(consumer.assignment)) {
            fail(consumer.clientId + " holds " + consumer.assignment + " in generation " + consumer.generation
                    + ", its leader assigned " + plan.get(consumer.memberId));
        }
    }

    private boolean settled() {
        if (!coordinator.isActive(0)) {
            return false;
        }
        for (String group : List.of("alpha", "beta")) {
            int generation = -2;
            List<Integer> all = new ArrayList<>();
            for (Consumer consumer : consumers) {
                if (!consumer.group.equals(group)) {
                    continue;
                }
                if (consumer.state != MemberState.STABLE) {
                    return false;
                }
                if (generation != -2 && generation != consumer.generation) {
                    return false;
                }
                generation = consumer.generation;
                all.addAll(consumer.assignment);
            }
            all.sort(Integer::compareTo);
            if (all.size() != TOPIC_PARTITIONS
                    || heartbeat(
                                    group,
                                    consumers.stream()
                                            .filter(c -> c.group.equals(group))
                                            .findFirst()
                                            .orElseThrow()
                                            .memberId,
                                    generation)
                            != GroupError.NONE) {
                return false;
            }
            for (int p = 0; p < TOPIC_PARTITIONS; p++) {
                if (all.get(p) != p) {
                    fail("group " + group + " stable in generation " + generation + " with partitions " + all);
                }
            }
        }
        return true;
    }

    private static byte[] encode(List<Integer> partitions) {
        StringBuilder sb = new StringBuilder();
        for (int p : partitions) {
            sb.append(p).append(',');
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static List<Integer> decode(byte[] assignment) {
        List<Integer> partitions = new ArrayList<>();
        for (String part : new String(assignment, StandardCharsets.UTF_8).split(",")) {
            if (!part.isEmpty()) {
                partitions.add(Integer.parseInt(part));
            }
        }
        return partitions;
    }

    private void digest(long value) {
        history = history * 31 + value;
    }

    private void trace(String event) {
        trace.add(nowMs + "ms " + event);
        if (trace.size() > 40) {
            trace.remove(0);
        }
    }

    private void fail(String what) {
        throw new Violation("seed " + seed + " (replay with -Dsim.seed=" + seed + "): " + what + "\nlast events:\n  "
                + String.join("\n  ", trace));
    }

    void close() {
        if (coordinator != null) {
            coordinator.close();
        }
    }
}
