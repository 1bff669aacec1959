package dev.strait.broker.txn;

import dev.strait.time.ManualTime;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One schedule of the transaction coordinator's core against simulated producers, a simulated durable log and
 * simulated partitions, all on one thread and one seed, so that a failing schedule replays exactly.
 *
 * <ul>
 *   <li>Log: the records of {@code __transaction_state}, durable up to {@code durableEnd}. A replication step
 *       moves the durable end on, and the core applies each transition once its record is durable, in log order.
 *   <li>Crash: the coordinator forgets everything in memory (pending transitions, markers it was writing); the log
 *       keeps its durable prefix and a random part of the tail above it (replicated, never acknowledged). A new
 *       coordinator replays what is left, serves once it is durable, and resends the markers it owes.
 *   <li>Producers: a few transactional ids, each used by one or more producer instances over time (a new
 *       instance fences the old one, which goes on as a zombie with its old epoch half the time). They init,
 *       add partitions, write data, commit or abort; replies are lost at random, and a producer whose reply does
 *       not come retries the same request; KIP-360 re-inits with the pair they hold.
 *   <li>Partitions: take data of a producer only at an epoch no older than any they saw from it (as Kafka's
 *       producer state does), and a marker closes every transaction of its producer open there.
 *   <li>Time: a {@link ManualTime}; transactions time out and transactional ids expire.
 * </ul>
 *
 * Invariants, checked as the events happen: a producer fenced by a newer acknowledged InitProducerId never gets a
 * commit acknowledged and no commit marker carries its epoch; an acknowledged EndTxn matches the durable state; a
 * transaction's outcome once acknowledged never changes, and all its partitions get that one outcome (never two);
 * a marker's epoch is never older than what its partition saw from the producer; at a crash, replaying the durable
 * prefix gives exactly the state the coordinator held. At the end, with faults stopped, everything settles: no
 * partition is left with an open transaction, and the state equals a replay of the whole log.
 */
final class TxnCoordinatorSim {

    static final TxnConfig SETTINGS = new TxnConfig(60_000, 30_000, "__consumer_offsets");
    private static final int TXN_IDS = 3;
    private static final int PARTITIONS = 4;
    private static final int TRACE_SIZE = Integer.getInteger("sim.trace", 80);
    private static final int SETTLE_ROUNDS = 100;

    /** What a sweep counts, so a test can insist every fault and path was exercised. */
    static final class Stats {
        long steps;
        long commitsAcked;
        long abortsAcked;
        long fences;
        long timeoutAborts;
        long crashes;
        long keptUnacknowledged;
        long lostReplies;
        long retries;
        long fencedReplies;
        long zombieWritesRefused;
        long rotations;
        long expirations;
        long idempotentEndRetries;
        long markersResent;
        long kip360Inits;
        long endsSwitched;

        void add(Stats other) {
            steps += other.steps;
            commitsAcked += other.commitsAcked;
            abortsAcked += other.abortsAcked;
            fences += other.fences;
            timeoutAborts += other.timeoutAborts;
            crashes += other.crashes;
            keptUnacknowledged += other.keptUnacknowledged;
            lostReplies += other.lostReplies;
            retries += other.retries;
            fencedReplies += other.fencedReplies;
            zombieWritesRefused += other.zombieWritesRefused;
            rotations += other.rotations;
            expirations += other.expirations;
            idempotentEndRetries += other.idempotentEndRetries;
            markersResent += other.markersResent;
            kip360Inits += other.kip360Inits;
            endsSwitched += other.endsSwitched;
        }

        @Override
        public String toString() {
            return "steps=" + steps + " commits=" + commitsAcked + " aborts=" + abortsAcked + " fences=" + fences
                    + " timeoutAborts=" + timeoutAborts + " crashes=" + crashes + " keptUnacked="
                    + keptUnacknowledged + " lostReplies=" + lostReplies + " retries=" + retries + " fencedReplies="
                    + fencedReplies + " zombieWritesRefused=" + zombieWritesRefused + " rotations=" + rotations
                    + " expirations=" + expirations + " idempotentEndRetries=" + idempotentEndRetries
                    + " markersResent=" + markersResent + " kip360Inits=" + kip360Inits + " endsSwitched="
                    + endsSwitched;
        }
    }

    static final class SimulationFailure extends AssertionError {
        private static final long serialVersionUID = 1L;
        final long seed;

        SimulationFailure(long seed, String message) {
            super(message);
            this.seed = seed;
        }
    }

    enum Op {
        INIT,
        ADD,
        END
    }

    /** A request as sent; a retry is a new request with the same content. */
    record Request(
            int id,
            Instance instance,
            Op op,
            long producerId,
            short epoch,
            ProducerIdAndEpoch expected,
            Set<TxnPartition> partitions,
            boolean commit,
            String tag) {

        Request resend(int newId) {
            return new Request(newId, instance, op, producerId, epoch, expected, partitions, commit, tag);
        }

        /** The other EndTxn: a client that gave up on its commit and aborts (or the reverse). */
        Request otherOutcome(int newId) {
            return new Request(newId, instance, op, producerId, epoch, expected, partitions, !commit, tag);
        }

        @Override
        public String toString() {
            return "#" + id + " i" + instance.id + " " + op + " " + producerId + ":" + epoch
                    + (expected == null ? "" : " expected=" + expected) + (op == Op.ADD ? " " + partitions : "")
                    + (op == Op.END ? (commit ? " commit" : " abort") : "") + (tag == null ? "" : " " + tag);
        }
    }

    /** A producer instance of a transactional id. */
    static final class Instance {
        final int id;
        final String transactionalId;
        final boolean zombieTolerant;
        final int txnTimeoutMs;
        long producerId = -1;
        short epoch = -1;
        boolean closed;
        Request outstanding;
        Request toRetry;
        String tag;
        /** EndTxn was sent for the tag: a producer writes no more data to that transaction, whatever it hears. */
        boolean ending;

        int txnNo;
        final Set<TxnPartition> added = new HashSet<>();

        Instance(int id, String transactionalId, boolean zombieTolerant, int txnTimeoutMs) {
            this.id = id;
            this.transactionalId = transactionalId;
            this.zombieTolerant = zombieTolerant;
            this.txnTimeoutMs = txnTimeoutMs;
        }
    }

    /** A transition whose record is in the log but not yet durable, and who waits for it. */
    record InFlight(int index, TxnTransition transition, Request request) {}

    /** A data partition: producer epochs it saw, and the transactions (tags) open on it per producer id. */
    static final class SimPartition {
        final Map<Long, Short> maxEpoch = new HashMap<>();
        final Map<Long, Set<String>> open = new HashMap<>();
    }

    final long seed;
    private final Random random;
    private final ManualTime time = new ManualTime();
    private final List<TransactionRecords.Entry> log = new ArrayList<>();
    private int durableEnd;
    private final Deque<InFlight> inFlight = new ArrayDeque<>();
    private final List<WriteMarkers> markerJobs = new ArrayList<>();
    private TransactionCoordinatorCore core;
    private int coordinatorEpoch;
    private long nextProducerId = 100;
    private int nextRequestId;
    private final List<Instance> instances = new ArrayList<>();
    private final Map<TxnPartition, SimPartition> partitions = new TreeMap<>();
    /** Acknowledged InitProducerId grants per transactional id, in order. */
    private final Map<String, List<ProducerIdAndEpoch>> grants = new HashMap<>();

    private final Map<String, Boolean> ackedOutcome = new HashMap<>();
    private final Map<String, Boolean> markerOutcome = new HashMap<>();
    private final Deque<String> trace = new ArrayDeque<>();
    private final double lossRate;
    private final double crashRate;
    private final boolean lyingLog;
    final Stats stats = new Stats();

    TxnCoordinatorSim(long seed) {
        this(seed, false);
    }

    /**
     * A schedule; with {@code lyingLog} a crash may also lose records that were acknowledged as durable (a broken
     * log, to show that the invariants catch lost acknowledged state).
     */
    TxnCoordinatorSim(long seed, boolean lyingLog) {
        this.seed = seed;
        this.lyingLog = lyingLog;
        this.random = new Random(seed);
        this.lossRate = 0.02 + random.nextDouble() * 0.2;
        this.crashRate = random.nextDouble() * 0.03;
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.put(new TxnPartition(p % 2 == 0 ? "orders" : "payments", p / 2), new SimPartition());
        }
        // one id starts a few bumps short of an exhausted epoch, so producer id rotation happens
        TransactionMetadata old = new TransactionMetadata(
                "t0",
                1,
                -1,
                -1,
                (short) (Short.MAX_VALUE - 5),
                (short) -1,
                5_000,
                TransactionState.COMPLETE_COMMIT,
                Set.of(),
                -1,
                time.milliseconds());
        log.add(TransactionRecords.entry(old));
        durableEnd = 1;
        load();
        activate();
        for (int i = 0; i < TXN_IDS + 1; i++) {
            newInstance();
        }
    }

    // ---------------------------------------------------------------- the schedule

    void run(int steps) {
        for (int i = 0; i < steps; i++) {
            stats.steps++;
            step();
        }
        settle();
    }

    private void step() {
        double r = random.nextDouble();
        if (r < crashRate) {
            crash();
        } else if (r < 0.45) {
            Instance instance = instances.get(random.nextInt(instances.size()));
            if (instance.outstanding == null && !instance.closed) {
                act(instance);
            }
        } else if (r < 0.52) {
            clientTimeout();
        } else if (r < 0.72) {
            replicate(1 + random.nextInt(3));
        } else if (r < 0.84) {
            deliverMarkers();
        } else if (r < 0.95) {
            tick(random.nextInt(2_500));
        } else if (r < 0.97) {
            newInstance();
        } else {
            expire();
        }
    }

    private void newInstance() {
        String id = "t" + random.nextInt(TXN_IDS);
        Instance instance = new Instance(instances.size(), id, random.nextBoolean(), 2_000 + random.nextInt(18_000));
        instances.add(instance);
        trace("new instance i" + instance.id + " of " + id + (instance.zombieTolerant ? " (goes on if fenced)" : ""));
    }

    // ---------------------------------------------------------------- producers

    private void act(Instance instance) {
        if (instance.toRetry != null) {
            Request retry = instance.toRetry;
            instance.toRetry = null;
            send(retry.resend(nextRequestId++));
        } else if (instance.producerId < 0) {
            send(request(instance, Op.INIT, null, Set.of(), false));
        } else if (instance.tag == null) {
            if (random.nextInt(10) == 0) {
                stats.kip360Inits++;
                send(request(instance, Op.INIT, held(instance), Set.of(), false));
            } else {
                instance.ending = false;
                instance.tag =
                        "i" + instance.id + "/" + instance.producerId + ":" + instance.epoch + "#" + ++instance.txnNo;
                send(request(instance, Op.ADD, null, randomPartitions(), false));
            }
        } else {
            int r = random.nextInt(100);
            if (r < 35 && !instance.added.isEmpty() && !instance.ending) {
                writeData(instance);
            } else if (r < 55) {
                send(request(instance, Op.ADD, null, randomPartitions(), false));
            } else {
                instance.ending = true;
                send(request(instance, Op.END, null, Set.of(), random.nextInt(100) < 65));
            }
        }
    }

    private static ProducerIdAndEpoch held(Instance instance) {
        return new ProducerIdAndEpoch(instance.producerId, instance.epoch);
    }

    private Request request(
            Instance instance, Op op, ProducerIdAndEpoch expected, Set<TxnPartition> parts, boolean commit) {
        return new Request(
                nextRequestId++,
                instance,
                op,
                instance.producerId,
                instance.epoch,
                expected,
                parts,
                commit,
                instance.tag);
    }

    private Set<TxnPartition> randomPartitions() {
        List<TxnPartition> all = new ArrayList<>(partitions.keySet());
        Set<TxnPartition> chosen = new HashSet<>();
        int count = 1 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
            chosen.add(all.get(random.nextInt(all.size())));
        }
        return chosen;
    }

    private void writeData(Instance instance) {
        List<TxnPartition> added = new ArrayList<>(new TreeSet<>(instance.added));
        TxnPartition tp = added.get(random.nextInt(added.size()));
        SimPartition partition = partitions.get(tp);
        short seen = partition.maxEpoch.getOrDefault(instance.producerId, (short) -1);
        if (instance.epoch < seen) {
            stats.zombieWritesRefused++;
            trace("i" + instance.id + " data to " + tp + " refused: epoch " + instance.epoch + " < " + seen);
            return;
        }
        partition.maxEpoch.put(instance.producerId, instance.epoch);
        partition
                .open
                .computeIfAbsent(instance.producerId, k -> new HashSet<>())
                .add(instance.tag);
        trace("i" + instance.id + " data to " + tp + " " + instance.tag);
    }

    private void clientTimeout() {
        List<Instance> waiting = new ArrayList<>();
        for (Instance instance : instances) {
            if (instance.outstanding != null) {
                waiting.add(instance);
            }
        }
        if (waiting.isEmpty()) {
            return;
        }
        Instance instance = waiting.get(random.nextInt(waiting.size()));
        stats.retries++;
        trace("i" + instance.id + " times out on " + instance.outstanding);
        Request timedOut = instance.outstanding;
        if (timedOut.op() == Op.END && random.nextInt(5) == 0) {
            stats.endsSwitched++;
            send(timedOut.otherOutcome(nextRequestId++));
        } else {
            send(timedOut.resend(nextRequestId++));
        }
    }

    // ---------------------------------------------------------------- the coordinator

    private void send(Request request) {
        request.instance().outstanding = request;
        long nowMs = time.milliseconds();
        TxnResult result = switch (request.op()) {
            case INIT ->
                core.initProducerId(
                        request.instance().transactionalId,
                        request.instance().txnTimeoutMs,
                        request.expected(),
                        () -> nextProducerId++,
                        nowMs);
            case ADD ->
                core.addPartitions(
                        request.instance().transactionalId,
                        request.producerId(),
                        request.epoch(),
                        request.partitions(),
                        nowMs);
            case END ->
                core.endTxn(
                        request.instance().transactionalId,
                        request.producerId(),
                        request.epoch(),
                        request.commit(),
                        nowMs);
        };
        trace("send " + request + " -> " + describe(result));
        if (result instanceof TxnResult.Refused refused) {
            reply(request, TxnReply.error(refused.error()));
        } else if (result instanceof TxnResult.Answered answered) {
            reply(request, answered.reply());
        } else {
            append(((TxnResult.Write) result).transition(), request);
        }
    }

    private static String describe(TxnResult result) {
        if (result instanceof TxnResult.Write write) {
            TxnTransition t = write.transition();
            return "write " + t.kind() + " " + t.to().state() + " " + t.to().producerId() + ":" + t.to().producerEpoch()
                    + " " + t.to().partitions();
        }
        return result.toString();
    }

    private void append(TxnTransition transition, Request request) {
        log.add(TransactionRecords.entry(transition.to()));
        inFlight.add(new InFlight(log.size() - 1, transition, request));
    }

    private void replicate(int records) {
        if (core.status() == TransactionCoordinatorCore.Status.LOADING) {
            durableEnd = log.size();
            activate();
            return;
        }
        durableEnd = Math.min(log.size(), durableEnd + records);
        while (!inFlight.isEmpty() && inFlight.peekFirst().index() < durableEnd) {
            InFlight next = inFlight.pollFirst();
            TransactionCoordinatorCore.Applied applied = core.apply(next.transition());
            trace("durable #" + next.index() + ": " + next.transition().kind() + " "
                    + next.transition().to().state() + " of "
                    + next.transition().transactionalId());
            count(next.transition());
            if (applied.markers() != null) {
                markerJobs.add(applied.markers());
            }
            if (next.request() != null) {
                reply(next.request(), applied.reply());
            }
        }
    }

    private void count(TxnTransition transition) {
        switch (transition.kind()) {
            case FENCE -> stats.fences++;
            case TIMEOUT_ABORT -> stats.timeoutAborts++;
            case EXPIRE -> stats.expirations++;
            case INIT_PRODUCER_ID -> {
                TransactionMetadata from = transition.from();
                if (from != null && from.producerId() != transition.to().producerId()) {
                    stats.rotations++;
                }
            }
            default -> {}
        }
    }

    private void activate() {
        List<WriteMarkers> owed = core.activate();
        stats.markersResent += owed.size();
        markerJobs.addAll(owed);
        trace("coordinator epoch " + coordinatorEpoch + " serves; resends " + owed);
    }

    private void load() {
        coordinatorEpoch++;
        core = TransactionCoordinatorCore.loaded(0, coordinatorEpoch, SETTINGS, TransactionLoader.replay(log));
    }

    private void deliverMarkers() {
        if (markerJobs.isEmpty()) {
            return;
        }
        WriteMarkers job = markerJobs.remove(random.nextInt(markerJobs.size()));
        trace("markers " + job);
        for (TxnPartition tp : job.partitions()) {
            writeMarker(tp, job);
        }
        TxnResult done =
                core.markersWritten(job.transactionalId(), job.producerId(), job.producerEpoch(), time.milliseconds());
        if (done instanceof TxnResult.Write write) {
            append(write.transition(), null);
        } else {
            fail("markers written for a decided transaction were refused: " + done);
        }
    }

    private void writeMarker(TxnPartition tp, WriteMarkers job) {
        if (job.commit()) {
            List<ProducerIdAndEpoch> granted = grants.getOrDefault(job.transactionalId(), List.of());
            ProducerIdAndEpoch pair = new ProducerIdAndEpoch(job.producerId(), job.producerEpoch());
            if (granted.isEmpty() || !granted.get(granted.size() - 1).equals(pair)) {
                fail("commit marker of " + pair + " for " + job.transactionalId() + ", but the last acknowledged "
                        + "InitProducerId was " + granted);
            }
        }
        SimPartition partition = partitions.get(tp);
        short seen = partition.maxEpoch.getOrDefault(job.producerId(), (short) -1);
        if (job.producerEpoch() < seen) {
            fail("marker " + job + " on " + tp + " older than epoch " + seen + " seen there");
        }
        partition.maxEpoch.put(job.producerId(), job.producerEpoch());
        Set<String> closed = partition.open.remove(job.producerId());
        if (closed == null) {
            return;
        }
        for (String tag : closed) {
            Boolean before = markerOutcome.put(tag, job.commit());
            if (before != null && before != job.commit()) {
                fail("transaction " + tag + " got both outcomes (torn), the second on " + tp);
            }
            Boolean acked = ackedOutcome.get(tag);
            if (acked != null && acked != job.commit()) {
                fail("transaction " + tag + " was acknowledged " + outcome(acked) + " but " + tp + " got "
                        + outcome(job.commit()));
            }
        }
    }

    private static String outcome(boolean commit) {
        return commit ? "committed" : "aborted";
    }

    private void tick(long ms) {
        time.advance(ms);
        for (TxnTransition abort : core.abortTimedOut(time.milliseconds())) {
            trace("timeout " + abort.transactionalId() + " -> " + abort.to().producerEpoch());
            append(abort, null);
        }
    }

    private void expire() {
        for (TxnTransition tombstone : core.expireTransactionalIds(time.milliseconds())) {
            trace("expire " + tombstone.transactionalId());
            append(tombstone, null);
        }
    }

    private void crash() {
        // Everything acknowledged is durable and the coordinator's state is exactly its durable prefix; while it
        // loads (nothing served, nothing written) it holds what it replayed, which may run past the durable end.
        Map<String, TransactionMetadata> before = core.snapshot();
        boolean loading = core.status() == TransactionCoordinatorCore.Status.LOADING;
        Map<String, TransactionMetadata> durable = TransactionLoader.replay(loading ? log : log.subList(0, durableEnd));
        if (!durable.equals(before)) {
            fail("before the crash the coordinator held " + before + " but its durable log replays to " + durable);
        }
        int floor = lyingLog ? Math.max(1, durableEnd - random.nextInt(4)) : durableEnd;
        int kept = Math.min(log.size(), floor + random.nextInt(log.size() - floor + 1));
        stats.crashes++;
        stats.keptUnacknowledged += Math.max(0, kept - durableEnd);
        trace("crash: log " + log.size() + " durable " + durableEnd + " kept " + kept);
        log.subList(kept, log.size()).clear();
        durableEnd = Math.min(durableEnd, kept);
        inFlight.clear();
        markerJobs.clear();
        load();
    }

    // ---------------------------------------------------------------- replies

    private void reply(Request request, TxnReply reply) {
        Instance instance = request.instance();
        if (random.nextDouble() < lossRate) {
            stats.lostReplies++;
            trace("lost reply to " + request + ": " + reply);
            return;
        }
        if (instance.outstanding == null || instance.outstanding.id() != request.id()) {
            trace("stale reply to " + request + ": " + reply);
            return;
        }
        instance.outstanding = null;
        trace("reply to " + request + ": " + reply);
        switch (reply.error()) {
            case NONE -> succeeded(request, reply);
            case CONCURRENT_TRANSACTIONS, COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR -> instance.toRetry = request;
            case PRODUCER_FENCED -> {
                stats.fencedReplies++;
                instance.closed = !instance.zombieTolerant;
            }
            case INVALID_PRODUCER_ID_MAPPING, INVALID_TXN_STATE -> {
                // abortable: recover under the same transactional id (KIP-360)
                instance.tag = null;
                instance.added.clear();
                instance.toRetry = request(instance, Op.INIT, held(instance), Set.of(), false);
            }
            default -> fail("unexpected reply " + reply + " to " + request);
        }
    }

    private void succeeded(Request request, TxnReply reply) {
        Instance instance = request.instance();
        switch (request.op()) {
            case INIT -> {
                instance.producerId = reply.producerId();
                instance.epoch = reply.producerEpoch();
                instance.tag = null;
                instance.added.clear();
                grants.computeIfAbsent(instance.transactionalId, k -> new ArrayList<>())
                        .add(new ProducerIdAndEpoch(reply.producerId(), reply.producerEpoch()));
            }
            case ADD -> {
                instance.added.addAll(request.partitions());
                for (TxnPartition tp : request.partitions()) {
                    partitions
                            .get(tp)
                            .open
                            .computeIfAbsent(request.producerId(), k -> new HashSet<>())
                            .add(request.tag());
                }
            }
            case END -> ended(request);
        }
    }

    private void ended(Request request) {
        Instance instance = request.instance();
        String id = instance.transactionalId;
        ProducerIdAndEpoch pair = new ProducerIdAndEpoch(request.producerId(), request.epoch());
        List<ProducerIdAndEpoch> granted = grants.getOrDefault(id, List.of());
        if (request.commit()
                && (granted.isEmpty() || !granted.get(granted.size() - 1).equals(pair))) {
            fail("commit acknowledged to " + pair + " of " + id + " though a newer producer was acknowledged: "
                    + granted);
        }
        TransactionMetadata now = core.snapshot().get(id);
        TransactionState prepared = request.commit() ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT;
        TransactionState complete =
                request.commit() ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
        if (now == null
                || (now.state() != prepared && now.state() != complete)
                || now.producerId() != pair.producerId()
                || now.producerEpoch() != pair.epoch()) {
            fail("EndTxn " + request + " acknowledged while the coordinator holds " + now);
        }
        if (now.state() == complete) {
            stats.idempotentEndRetries++;
        }
        Boolean before = ackedOutcome.put(request.tag(), request.commit());
        Boolean marked = markerOutcome.get(request.tag());
        if ((before != null && before != request.commit()) || (marked != null && marked != request.commit())) {
            fail("transaction " + request.tag() + " acknowledged " + outcome(request.commit())
                    + " after it was acknowledged or marked otherwise");
        }
        if (request.commit()) {
            stats.commitsAcked++;
        } else {
            stats.abortsAcked++;
        }
        instance.tag = null;
        instance.added.clear();
    }

    // ---------------------------------------------------------------- the end

    /** Faults stop; everything durable, every marker written, every transaction ended by its timeout. */
    private void settle() {
        for (int round = 0; round < SETTLE_ROUNDS && !settled(); round++) {
            replicate(log.size());
            while (!markerJobs.isEmpty()) {
                deliverMarkers();
            }
            replicate(log.size());
            tick(SETTINGS.maxTransactionTimeoutMs() + 1L);
        }
        if (!settled()) {
            fail("did not settle: in flight " + inFlight + ", markers " + markerJobs + ", state " + core.snapshot());
        }
        for (Map.Entry<TxnPartition, SimPartition> partition : partitions.entrySet()) {
            if (!partition.getValue().open.isEmpty()) {
                fail("partition " + partition.getKey() + " has transactions left open: " + partition.getValue().open);
            }
        }
        Map<String, TransactionMetadata> replayed = TransactionLoader.replay(log);
        if (!replayed.equals(core.snapshot())) {
            fail("the whole log replays to " + replayed + " but the coordinator holds " + core.snapshot());
        }
    }

    private boolean settled() {
        if (core.status() != TransactionCoordinatorCore.Status.ACTIVE || !inFlight.isEmpty() || !markerJobs.isEmpty()) {
            return false;
        }
        for (TransactionMetadata txn : core.snapshot().values()) {
            if (txn.state() == TransactionState.ONGOING || txn.state().isPrepared()) {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- failure

    private void trace(String event) {
        if (trace.size() == TRACE_SIZE) {
            trace.pollFirst();
        }
        trace.addLast("[" + time.milliseconds() % 10_000_000 + "] " + event);
    }

    private void fail(String message) {
        StringBuilder text = new StringBuilder()
                .append("transaction coordinator simulation failed, replay with -Dsim.seed=")
                .append(seed)
                .append(": ")
                .append(message)
                .append("\nlast events:");
        trace.forEach(event -> text.append("\n  ").append(event));
        throw new SimulationFailure(seed, text.toString());
    }
}
