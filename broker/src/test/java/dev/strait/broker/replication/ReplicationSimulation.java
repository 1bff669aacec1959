package dev.strait.broker.replication;

import dev.strait.broker.controller.PartitionChanges;
import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * One partition replicated over three nodes with {@link PartitionReplica}, a fake clock, a fake network
 * (delays, drops, reordering, links cut and healed), a fake disk ({@link MemoryLog}: power loss drops what was
 * not flushed), random crashes and restarts, and an acks=all producer. The controller is an oracle here (the
 * Raft quorum has its own simulation), but its rules are production's ({@link PartitionChanges}, which
 * QuorumController applies): it fences a node that stopped, elects from the ISR then the ELR, takes a node that
 * registers after a power loss (a new boot) out of every ISR and ELR while one that merely crashed comes back as
 * after a clean shutdown, and commits the leaders' AlterPartition when its epochs are current and the replicas it
 * adds are unfenced and registered with the incarnation they fetched with. Schedules include the last ISR member
 * losing power with min.insync.replicas=2 (issue 22).
 *
 * <p>Everything is driven by one {@link Random} from the seed, so a seed replays a run exactly. After every
 * event the invariants are checked; the first broken one ends the run with a {@link Violation} that names the
 * seed and the last events.
 */
final class ReplicationSimulation {

    static final int NODES = 3;
    static final int MIN_ISR = 2;

    /** An invariant did not hold; the message says which, with the seed and a trace. */
    static final class Violation extends AssertionError {
        private static final long serialVersionUID = 1L;

        final long seed;
        /** A broken safety rule (a record lost or changed, two leaders); otherwise liveness (no progress). */
        final boolean safety;

        Violation(long seed, boolean safety, String message) {
            super(message);
            this.seed = seed;
            this.safety = safety;
        }
    }

    /** What a run did, for the test to assert on and print. */
    record Outcome(
            long seed,
            int acked,
            int leaderChanges,
            int crashes,
            int powerLosses,
            int loneIsrPowerLosses,
            long committed) {}

    private sealed interface Message
            permits Fetch, FetchReply, EpochQuery, EpochAnswer, Assign, AlterIsr, IsrRefused, Produce, ProduceReply {}

    private record Fetch(int from, int to, int incarnation, long requestId, int leaderEpoch, long offset)
            implements Message {}

    private record FetchReply(
            int from,
            int to,
            long requestId,
            int leaderEpoch,
            long offset,
            List<MemoryLog.Entry> entries,
            long highWatermark,
            boolean error)
            implements Message {}

    private record EpochQuery(int from, int to, long requestId, int leaderEpoch, int epoch) implements Message {}

    private record EpochAnswer(
            int from, int to, long requestId, int leaderEpoch, int epoch, EpochEndOffset answer, boolean error)
            implements Message {}

    /** Carries the incarnation the controller registered, so a restarted node ignores what its previous life was sent. */
    private record Assign(int to, int incarnation, PartitionAssignment assignment) implements Message {}

    private record AlterIsr(int from, IsrChange change) implements Message {}

    /** The controller did not apply the change (a fenced or restarted replica in it): the leader drops it. */
    private record IsrRefused(int to, IsrChange change) implements Message {}

    private record Produce(int to, long value) implements Message {}

    private record ProduceReply(int from, long value, long offset, boolean ok) implements Message {}

    private record Delivery(long atMs, long order, Message message) implements Comparable<Delivery> {
        @Override
        public int compareTo(Delivery o) {
            return atMs != o.atMs ? Long.compare(atMs, o.atMs) : Long.compare(order, o.order);
        }
    }

    private final class Node {
        final int id;
        final MemoryLog log = new MemoryLog();
        PartitionReplica replica;
        boolean alive = true;
        int incarnation;
        /** The last crash was a power loss: the node boots anew and registers as after an unclean shutdown. */
        boolean lostPower;

        long inFlightRequest = -1;
        long inFlightSinceMs;
        long lastIsrSendMs;
        /** acks=all produces appended here and waiting for the high watermark: offset, epoch, value. */
        final List<long[]> waiting = new ArrayList<>();

        Node(int id) {
            this.id = id;
            this.replica = new PartitionReplica(id, log, config);
        }
    }

    private final long seed;
    private final Random random;
    private final ReplicationConfig config;
    private final Node[] nodes = new Node[NODES];
    private final PriorityQueue<Delivery> network = new PriorityQueue<>();
    private final boolean[][] cut = new boolean[NODES + 1][NODES + 1];
    private final List<String> trace = new ArrayList<>();
    private long nowMs;
    private long order;
    private long nextRequestId;
    private long nextValue = 1;

    // The controller's view: the partition as QuorumController keeps it, and which nodes it has fenced.
    private final ElectionRules rules;
    private PartitionState partition;
    private PartitionAssignment assignment;
    private final boolean[] fenced = new boolean[NODES];
    private final long[] fenceAtMs = new long[NODES];
    private final long[] unfenceAtMs = new long[NODES];
    private final int[] incarnationOf = new int[NODES];

    // What the checker knows.
    private final Map<Long, MemoryLog.Entry> committed = new HashMap<>();
    private final Map<Long, Long> acked = new HashMap<>();
    private final Map<Integer, Integer> leaderOfEpoch = new HashMap<>();
    private final long[] verifiedUpTo = new long[NODES];
    private int leaderChanges;
    private int crashes;
    private int powerLosses;
    private int loneIsrPowerLosses;

    /** The controller's rules for a node that registers after a power loss. */
    enum ElectionRules {
        /** QuorumController's ({@link PartitionChanges}): out of every ISR and ELR, unless it is the only replica. */
        PRODUCTION,
        /**
         * The rule before issue 22: the registration ignores the power loss, so a node that was the last ISR member
         * stays so and leads again with whatever its disk kept. Only for showing that the checker catches it.
         */
        POWER_LOSS_IGNORED
    }

    ReplicationSimulation(long seed, TruncationRule rule) {
        this(seed, rule, ElectionRules.PRODUCTION);
    }

    ReplicationSimulation(long seed, TruncationRule rule, ElectionRules rules) {
        this.seed = seed;
        this.random = new Random(seed);
        this.config = new ReplicationConfig(300, MIN_ISR, rule);
        this.rules = rules;
        for (int i = 0; i < NODES; i++) {
            nodes[i] = new Node(i);
            fenceAtMs[i] = -1;
            unfenceAtMs[i] = -1;
        }
        partition = new PartitionState(List.of(0, 1, 2), List.of(0, 1, 2), 0, 0);
        assignment = new PartitionAssignment(0, 0, partition.replicas(), Set.copyOf(partition.isr()), 0);
        publish();
    }

    /** Runs {@code durationMs} of faults and load, heals everything, lets it settle and checks the end state. */
    Outcome run(long durationMs) {
        long faultsEnd = durationMs;
        while (nowMs < faultsEnd) {
            step(true);
        }
        healAll();
        long settleEnd = nowMs + 4_000;
        // A probe can be lost on the wire like any request; the client sends another after a while, as a
        // producer would retry.
        long probeSentMs = -1_000;
        boolean probeAcked = false;
        while (nowMs < settleEnd && !(probeAcked && converged())) {
            if (!probeAcked
                    && nowMs - probeSentMs > 200
                    && assignment.hasLeader()
                    && assignment.isr().size() == NODES) {
                probeSentMs = nowMs;
                produce();
            }
            int before = acked.size();
            step(false);
            probeAcked |= acked.size() > before;
        }
        if (!probeAcked) {
            fail(false, "no record was acknowledged within 4 s after every fault healed (liveness)");
        }
        if (!converged()) {
            fail(false, "replicas did not converge after healing: " + describeNodes());
        }
        checkAckedOn(nodes[assignment.leader()], "final leader");
        return new Outcome(
                seed, acked.size(), leaderChanges, crashes, powerLosses, loneIsrPowerLosses, committed.size());
    }

    private void step(boolean faults) {
        nowMs += 1;
        while (!network.isEmpty() && network.peek().atMs() <= nowMs) {
            deliver(network.poll().message());
            check();
        }
        for (Node node : nodes) {
            if (node.alive) {
                tick(node);
            }
        }
        controllerTick();
        if (faults) {
            injectFaults();
            if (random.nextInt(8) == 0) {
                produce();
            }
        }
        check();
    }

    private void injectFaults() {
        int roll = random.nextInt(2_000);
        if (roll < 4) {
            Node victim = nodes[random.nextInt(NODES)];
            if (victim.alive) {
                crash(victim, roll < 2 && powerLossAllowed(victim));
            }
        } else if (roll < 6) {
            // Issue 22, defect 1: the ISR shrank below min.insync.replicas to one node, which then loses power.
            if (partition.isr().size() == 1) {
                Node lone = nodes[partition.isr().get(0)];
                if (lone.alive && powerLossAllowed(lone)) {
                    loneIsrPowerLosses++;
                    crash(lone, true);
                }
            }
        } else if (roll < 16) {
            Node down = deadNode();
            if (down != null) {
                restart(down);
            }
        } else if (roll < 19) {
            int a = random.nextInt(NODES + 1);
            int b = random.nextInt(NODES + 1);
            if (a != b) {
                cut[a][b] = cut[b][a] = true;
                trace("cut link " + a + "-" + b);
            }
        } else if (roll < 32) {
            for (boolean[] row : cut) {
                Arrays.fill(row, false);
            }
        } else if (roll < 82) {
            Node node = nodes[random.nextInt(NODES)];
            if (node.alive) {
                node.log.flush();
            }
        }
    }

    /**
     * Power loss is survivable only while every committed record is still held by another replica the controller
     * may elect (in the ISR or the ELR) whose copy survives (it is up, or stopped without losing power): losing
     * unflushed writes on every such copy at once loses data in any broker that does not fsync each write (Kafka's
     * default too), so the schedule does not do that. One such copy is enough; the controller's rules must then
     * elect it rather than the node that lost power. Nor does a second node lose power while the first is still
     * down: until it registers, the controller counts it in the ISR, where it can outvote the copy that survives
     * (the ISR stays at min.insync.replicas, so a fenced holder leaves it without joining the ELR).
     */
    private boolean powerLossAllowed(Node victim) {
        for (Node other : nodes) {
            if (other != victim && !other.alive && other.lostPower) {
                return false;
            }
        }
        for (Node other : nodes) {
            if (other == victim
                    || !(partition.isr().contains(other.id) || partition.elr().contains(other.id))
                    || !other.alive && other.lostPower) {
                continue;
            }
            boolean holdsAll = true;
            for (Map.Entry<Long, MemoryLog.Entry> e : committed.entrySet()) {
                long offset = e.getKey();
                if (offset >= other.log.logEndOffset()
                        || !other.log.entry(offset).equals(e.getValue())) {
                    holdsAll = false;
                    break;
                }
            }
            if (holdsAll) {
                return true;
            }
        }
        return false;
    }

    private Node deadNode() {
        List<Node> dead = new ArrayList<>();
        for (Node node : nodes) {
            if (!node.alive) {
                dead.add(node);
            }
        }
        return dead.isEmpty() ? null : dead.get(random.nextInt(dead.size()));
    }

    private void crash(Node node, boolean powerLoss) {
        trace("crash " + node.id + (powerLoss ? " with power loss" : "") + " " + node.log);
        crashes++;
        if (powerLoss) {
            powerLosses++;
        }
        node.alive = false;
        node.lostPower = powerLoss;
        node.log.crash(powerLoss);
        node.replica.goOffline();
        node.waiting.clear();
        node.inFlightRequest = -1;
        fenceAtMs[node.id] = nowMs + 50 + random.nextInt(250);
    }

    private void restart(Node node) {
        node.alive = true;
        node.incarnation++;
        node.replica = new PartitionReplica(node.id, node.log, config);
        trace("restart " + node.id + " " + node.log);
        register(node.id, node.lostPower);
    }

    private void healAll() {
        for (boolean[] row : cut) {
            Arrays.fill(row, false);
        }
        for (Node node : nodes) {
            if (!node.alive) {
                restart(node);
            }
        }
        trace("healed");
    }

    // ---- controller ----------------------------------------------------------------------------------

    private void controllerTick() {
        // Nodes follow the metadata log in Kafka, so a lost update is fetched again; here the controller repeats it.
        if (nowMs % 100 == 0) {
            publish();
        }
        for (int id = 0; id < NODES; id++) {
            if (fenceAtMs[id] >= 0 && nowMs >= fenceAtMs[id]) {
                fenceAtMs[id] = -1;
                if (!nodes[id].alive && !fenced[id]) {
                    int gone = id;
                    fenced[gone] = true;
                    change(
                            "fences " + gone,
                            reconcile(other -> other != gone && !fenced[other], PartitionChanges.NONE));
                }
            }
            if (unfenceAtMs[id] >= 0 && nowMs >= unfenceAtMs[id]) {
                unfenceAtMs[id] = -1;
                if (nodes[id].alive && nodes[id].incarnation == incarnationOf[id] && fenced[id]) {
                    int back = id;
                    fenced[back] = false;
                    change("unfences " + back, reconcile(other -> !fenced[other], PartitionChanges.NONE));
                }
            }
        }
    }

    /**
     * A node came back as a new incarnation: QuorumController's registration fences it and takes it out of every
     * ISR it is not the last member of; after a power loss (a new boot: no clean-shutdown marker, another boot id)
     * out of every ISR and ELR as well, since it may have lost unflushed records (KIP-903, KIP-966). It is unfenced
     * once its metadata caught up, a little later.
     */
    private void register(int id, boolean afterPowerLoss) {
        incarnationOf[id] = nodes[id].incarnation;
        fenced[id] = true;
        fenceAtMs[id] = -1;
        unfenceAtMs[id] = nowMs + 5 + random.nextInt(20);
        boolean unclean = afterPowerLoss && rules == ElectionRules.PRODUCTION;
        change(
                "registers " + id + (afterPowerLoss ? " after a power loss" : ""),
                reconcile(
                        other -> other != id && !fenced[other],
                        unclean ? other -> other == id : PartitionChanges.NONE));
        send(new Assign(id, incarnationOf[id], assignment), 0);
    }

    private PartitionState reconcile(IntPredicate live, IntPredicate uncleanlyStopped) {
        return PartitionChanges.reconcile(partition, MIN_ISR, live, uncleanlyStopped);
    }

    /** Commits the partition's next state, if it differs, and tells every registered node. */
    private void change(String why, PartitionState next) {
        if (next == partition || next.equals(partition)) {
            trace("controller " + why);
            return;
        }
        boolean newLeader = next.leaderEpoch() != partition.leaderEpoch();
        partition = next;
        assignment = new PartitionAssignment(
                next.leader(),
                next.leaderEpoch(),
                next.replicas(),
                Set.copyOf(next.isr()),
                assignment.partitionEpoch() + 1);
        if (newLeader) {
            leaderChanges++;
        }
        trace("controller " + why + ": " + (newLeader ? "elects " + next.leader() + ", " : "") + describe(next));
        publish();
    }

    private String describe(PartitionState state) {
        return "leader " + state.leader() + " epoch " + state.leaderEpoch() + " isr " + state.isr() + " elr "
                + state.elr() + " last known elr " + state.lastKnownElr() + " partition epoch "
                + assignment.partitionEpoch();
    }

    /**
     * QuorumController's AlterPartition: it must name the current leader and epochs; a replica it adds must be
     * unfenced and still registered with the incarnation it fetched with (KIP-903). A refusal on the epochs leaves
     * the change pending at the leader until newer metadata arrives; any other refusal drops it.
     */
    private void alterIsr(int from, IsrChange change) {
        if (change.leader() != assignment.leader()
                || change.leaderEpoch() != assignment.leaderEpoch()
                || change.partitionEpoch() != assignment.partitionEpoch()) {
            trace("controller refuses stale " + change);
            send(new Assign(from, incarnationOf[from], assignment), 1 + random.nextInt(5));
            return;
        }
        for (int id : change.newIsr()) {
            Long fetchedWith = change.brokerEpochs().get(id);
            if (!partition.isr().contains(id)
                    && (fenced[id] || fetchedWith != null && fetchedWith != incarnationOf[id])) {
                trace("controller refuses " + change + ": " + id + " is fenced or restarted since it fetched");
                send(new IsrRefused(from, change), delay());
                return;
            }
        }
        if (new TreeSet<>(change.newIsr()).equals(new TreeSet<>(partition.isr()))) {
            send(new Assign(from, incarnationOf[from], assignment), 1 + random.nextInt(5));
            return;
        }
        change(
                "commits isr " + change.newIsr(),
                PartitionChanges.alterIsr(partition, List.copyOf(change.newIsr()), MIN_ISR));
    }

    private void publish() {
        for (int id = 0; id < NODES; id++) {
            if (nodes[id].alive && nodes[id].incarnation == incarnationOf[id]) {
                send(new Assign(id, incarnationOf[id], assignment), 1 + random.nextInt(10));
            }
        }
    }

    // ---- nodes ---------------------------------------------------------------------------------------

    private void tick(Node node) {
        PartitionReplica replica = node.replica;
        if (node.inFlightRequest >= 0 && nowMs - node.inFlightSinceMs > 60) {
            node.inFlightRequest = -1;
        }
        Optional<PartitionAssignment> assigned = replica.assignment();
        switch (replica.state()) {
            case FOLLOWER_TRUNCATING -> {
                if (node.inFlightRequest < 0 && assigned.get().hasLeader()) {
                    node.inFlightRequest = nextRequestId++;
                    node.inFlightSinceMs = nowMs;
                    send(
                            new EpochQuery(
                                    node.id,
                                    assigned.get().leader(),
                                    node.inFlightRequest,
                                    replica.leaderEpoch(),
                                    replica.epochToQuery()),
                            delay());
                }
            }
            case FOLLOWER_FETCHING -> {
                if (node.inFlightRequest < 0 && assigned.get().hasLeader()) {
                    node.inFlightRequest = nextRequestId++;
                    node.inFlightSinceMs = nowMs;
                    send(
                            new Fetch(
                                    node.id,
                                    assigned.get().leader(),
                                    node.incarnation,
                                    node.inFlightRequest,
                                    replica.leaderEpoch(),
                                    replica.fetchOffset()),
                            delay());
                }
            }
            case LEADER -> {
                replica.maybeShrinkIsr(nowMs).ifPresent(change -> sendIsr(node, change));
                Optional<IsrChange> pending = replica.pendingIsrChange();
                if (pending.isPresent() && nowMs - node.lastIsrSendMs > 100) {
                    sendIsr(node, pending.get());
                }
                completeProduces(node);
            }
            case OFFLINE -> {}
        }
    }

    private void sendIsr(Node node, IsrChange change) {
        node.lastIsrSendMs = nowMs;
        send(new AlterIsr(node.id, change), delay());
    }

    private void completeProduces(Node node) {
        var it = node.waiting.iterator();
        while (it.hasNext()) {
            long[] w = it.next();
            ProduceCheck check = node.replica.checkProduceCompletion(w[0], (int) w[1]);
            if (check == ProduceCheck.PENDING) {
                continue;
            }
            it.remove();
            send(new ProduceReply(node.id, w[2], w[0], check == ProduceCheck.OK), delay());
        }
    }

    private void produce() {
        if (!assignment.hasLeader()) {
            return;
        }
        send(new Produce(assignment.leader(), nextValue++), delay());
    }

    private void deliver(Message message) {
        if (message instanceof Assign a) {
            Node node = nodes[a.to()];
            if (node.alive && node.incarnation == a.incarnation()) {
                boolean wasLeader = node.replica.state() == PartitionReplica.State.LEADER;
                int before = node.replica.leaderEpoch();
                if (node.replica.applyAssignment(a.assignment(), nowMs)) {
                    if (node.replica.leaderEpoch() != before) {
                        node.inFlightRequest = -1;
                        node.waiting.clear();
                    }
                    if (node.replica.state() == PartitionReplica.State.LEADER
                            && (!wasLeader || node.replica.leaderEpoch() != before)) {
                        trace("node " + node.id + " leads epoch " + node.replica.leaderEpoch() + " " + node.log);
                        checkAckedOn(node, "new leader " + node.id);
                    }
                }
            }
        } else if (message instanceof AlterIsr a) {
            alterIsr(a.from(), a.change());
        } else if (message instanceof IsrRefused r) {
            Node node = nodes[r.to()];
            if (node.alive && node.replica.pendingIsrChange().equals(Optional.of(r.change()))) {
                node.replica.onIsrChangeRejected();
            }
        } else if (message instanceof Produce p) {
            Node node = nodes[p.to()];
            if (node.alive && node.replica.checkAppend(true) == ProduceCheck.OK) {
                long offset = node.log.appendAsLeader(node.replica.leaderEpoch(), p.value());
                node.waiting.add(new long[] {offset, node.replica.leaderEpoch(), p.value()});
                node.replica.onLeaderAppend();
            }
        } else if (message instanceof ProduceReply r) {
            if (r.ok()) {
                MemoryLog.Entry entry = committed.get(r.offset());
                if (entry == null || entry.value() != r.value()) {
                    fail("acknowledged " + r.value() + " at " + r.offset() + " is not committed there: " + entry);
                }
                acked.put(r.offset(), r.value());
                trace("acked " + r.value() + "@" + r.offset());
            }
        } else if (message instanceof Fetch f) {
            onFetch(f);
        } else if (message instanceof FetchReply r) {
            onFetchReply(r);
        } else if (message instanceof EpochQuery q) {
            Node leader = nodes[q.to()];
            if (!leader.alive) {
                return;
            }
            boolean ok = leader.replica.checkEpoch(q.leaderEpoch()) == EpochCheck.OK;
            send(
                    new EpochAnswer(
                            q.to(),
                            q.from(),
                            q.requestId(),
                            q.leaderEpoch(),
                            q.epoch(),
                            ok ? leader.log.endOffsetForEpoch(q.epoch()) : EpochEndOffset.UNDEFINED,
                            !ok),
                    delay());
        } else if (message instanceof EpochAnswer a) {
            Node node = nodes[a.to()];
            if (!node.alive || node.inFlightRequest != a.requestId()) {
                return;
            }
            node.inFlightRequest = -1;
            if (a.error()
                    || node.replica.state() != PartitionReplica.State.FOLLOWER_TRUNCATING
                    || node.replica.leaderEpoch() != a.leaderEpoch()
                    || node.replica.epochToQuery() != a.epoch()) {
                return;
            }
            String before = node.log.toString();
            node.replica.onEpochEndOffset(a.answer());
            trace("node " + node.id + " truncates on " + a.answer() + ": " + before + " -> " + node.log);
        }
    }

    private void onFetch(Fetch f) {
        Node leader = nodes[f.to()];
        if (!leader.alive) {
            return;
        }
        boolean ok = leader.replica.checkEpoch(f.leaderEpoch()) == EpochCheck.OK
                && leader.replica.assignment().get().replicas().contains(f.from());
        if (!ok) {
            send(
                    new FetchReply(f.to(), f.from(), f.requestId(), f.leaderEpoch(), f.offset(), List.of(), 0, true),
                    delay());
            return;
        }
        if (f.offset() > leader.log.logEndOffset()) {
            // Only a follower that truncated wrongly can be ahead; Kafka answers OFFSET_OUT_OF_RANGE and the
            // follower truncates to the leader's end. The checker judges what that did to the data.
            send(
                    new FetchReply(
                            f.to(),
                            f.from(),
                            f.requestId(),
                            f.leaderEpoch(),
                            -leader.log.logEndOffset() - 1,
                            List.of(),
                            leader.log.highWatermark(),
                            false),
                    delay());
            return;
        }
        leader.replica
                .onFollowerFetch(f.from(), f.incarnation(), f.offset(), nowMs)
                .ifPresent(change -> sendIsr(leader, change));
        List<MemoryLog.Entry> batch = new ArrayList<>();
        for (long o = f.offset(); o < leader.log.logEndOffset() && batch.size() < 8; o++) {
            batch.add(leader.log.entry(o));
        }
        send(
                new FetchReply(
                        f.to(),
                        f.from(),
                        f.requestId(),
                        f.leaderEpoch(),
                        f.offset(),
                        batch,
                        leader.log.highWatermark(),
                        false),
                delay());
    }

    private void onFetchReply(FetchReply r) {
        Node node = nodes[r.to()];
        if (!node.alive || node.inFlightRequest != r.requestId()) {
            return;
        }
        node.inFlightRequest = -1;
        PartitionReplica replica = node.replica;
        if (r.error()
                || replica.state() != PartitionReplica.State.FOLLOWER_FETCHING
                || replica.leaderEpoch() != r.leaderEpoch()) {
            return;
        }
        if (r.offset() < 0) {
            long leaderEnd = -r.offset() - 1;
            trace("node " + node.id + " out of range, truncates to " + leaderEnd + " from " + node.log);
            node.log.truncateTo(leaderEnd);
            return;
        }
        if (r.offset() != node.log.logEndOffset()) {
            return;
        }
        long offset = r.offset();
        try {
            for (MemoryLog.Entry entry : r.entries()) {
                node.log.appendAsFollower(offset++, entry);
            }
        } catch (IllegalArgumentException e) {
            // The broker's fetcher logs this and tries again later; a replica that can never append shows as a
            // liveness failure once every fault has healed.
            trace("node " + node.id + " cannot append: " + e.getMessage());
            return;
        }
        replica.onFetchResponse(r.highWatermark());
    }

    // ---- network -------------------------------------------------------------------------------------

    private int delay() {
        return 1 + random.nextInt(random.nextInt(10) == 0 ? 40 : 8);
    }

    private void send(Message message, int delayMs) {
        int[] ends = endpoints(message);
        int controller = NODES;
        int a = ends[0] < 0 ? controller : ends[0];
        int b = ends[1] < 0 ? controller : ends[1];
        if (cut[a][b] || random.nextInt(100) < 2) {
            return;
        }
        network.add(new Delivery(nowMs + delayMs, order++, message));
        if (random.nextInt(200) == 0 && !(message instanceof Produce) && !(message instanceof ProduceReply)) {
            network.add(new Delivery(nowMs + delayMs + random.nextInt(30), order++, message));
        }
    }

    /** Sender and receiver; -1 stands for the controller. Client messages ride the leader's own link. */
    private static int[] endpoints(Message message) {
        if (message instanceof Fetch f) {
            return new int[] {f.from(), f.to()};
        } else if (message instanceof FetchReply r) {
            return new int[] {r.from(), r.to()};
        } else if (message instanceof EpochQuery q) {
            return new int[] {q.from(), q.to()};
        } else if (message instanceof EpochAnswer a) {
            return new int[] {a.from(), a.to()};
        } else if (message instanceof Assign a) {
            return new int[] {-1, a.to()};
        } else if (message instanceof AlterIsr a) {
            return new int[] {a.from(), -1};
        } else if (message instanceof IsrRefused r) {
            return new int[] {-1, r.to()};
        } else if (message instanceof Produce p) {
            return new int[] {p.to(), p.to()};
        }
        ProduceReply r = (ProduceReply) message;
        return new int[] {r.from(), r.from()};
    }

    // ---- invariants ----------------------------------------------------------------------------------

    private void check() {
        leaderOfEpochCheck();
        for (Node node : nodes) {
            // A replica may drop records it knew were committed (power loss, or a wrong truncation rule); whether
            // that loses anything shows when it leads or when the offsets are committed again.
            verifiedUpTo[node.id] = Math.min(verifiedUpTo[node.id], node.log.takeLowestTruncation());
            long hw = node.log.highWatermark();
            for (long o = verifiedUpTo[node.id]; o < hw; o++) {
                MemoryLog.Entry entry = node.log.entry(o);
                MemoryLog.Entry known = committed.putIfAbsent(o, entry);
                if (known != null && !known.equals(entry)) {
                    fail("node " + node.id + " has " + entry + " at committed offset " + o + " where " + known
                            + " was committed");
                }
            }
            verifiedUpTo[node.id] = Math.max(verifiedUpTo[node.id], hw);
        }
    }

    private void leaderOfEpochCheck() {
        for (Node node : nodes) {
            if (node.alive && node.replica.state() == PartitionReplica.State.LEADER) {
                Integer other = leaderOfEpoch.putIfAbsent(node.replica.leaderEpoch(), node.id);
                if (other != null && other != node.id) {
                    fail("two leaders in epoch " + node.replica.leaderEpoch() + ": " + other + " and " + node.id);
                }
            }
        }
    }

    private void checkAckedOn(Node node, String who) {
        for (Map.Entry<Long, Long> e : acked.entrySet()) {
            long offset = e.getKey();
            if (offset >= node.log.logEndOffset() || node.log.entry(offset).value() != e.getValue()) {
                fail("acknowledged record " + e.getValue() + " at offset " + offset + " is missing on " + who + ": "
                        + node.log);
            }
        }
    }

    private boolean converged() {
        List<MemoryLog.Entry> first = nodes[0].log.entries();
        long hw = nodes[0].log.highWatermark();
        for (Node node : nodes) {
            if (!node.alive
                    || !node.log.entries().equals(first)
                    || node.log.highWatermark() != hw
                    || hw != node.log.logEndOffset()) {
                return false;
            }
        }
        return true;
    }

    private String describeNodes() {
        StringBuilder sb = new StringBuilder();
        for (Node node : nodes) {
            sb.append("\n  node ")
                    .append(node.id)
                    .append(' ')
                    .append(node.replica)
                    .append(' ')
                    .append(node.log);
        }
        return sb.append("\n  controller ").append(assignment).toString();
    }

    private void trace(String event) {
        trace.add(nowMs + "ms " + event);
        if (trace.size() > 60) {
            trace.remove(0);
        }
    }

    private void fail(String what) {
        fail(true, what);
    }

    private void fail(boolean safety, String what) {
        throw new Violation(
                seed,
                safety,
                "seed " + seed + " (replay with -Dsim.seed=" + seed + "): " + what
                        + describeNodes()
                        + "\nlast events:\n  " + String.join("\n  ", trace));
    }

    Set<Long> ackedOffsets() {
        return new LinkedHashSet<>(acked.keySet());
    }
}
