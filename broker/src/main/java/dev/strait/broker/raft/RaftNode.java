package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.BeginQuorumEpoch;
import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import dev.strait.broker.raft.RaftMessage.VoteRequest;
import dev.strait.broker.raft.RaftMessage.VoteResponse;
import dev.strait.broker.raft.RaftRole.Candidate;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import dev.strait.broker.raft.RaftRole.Prospective;
import dev.strait.broker.raft.RaftRole.Resigned;
import dev.strait.broker.raft.RaftRole.Unattached;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One member of a Raft quorum that replicates the metadata log, in the style of KRaft: voters elect a leader per
 * epoch with Vote requests, the leader announces itself with BeginQuorumEpoch, and followers (voters and
 * observers alike) <em>pull</em> the log with Fetch. The leader finds where a follower's log diverges from its
 * own by the follower's last fetched epoch and answers with a diverging epoch; the follower truncates and fetches
 * again. The high watermark (commit index) is the largest end offset that a majority of voters has flushed, and
 * it only moves once an entry of the leader's own epoch is in that majority, which is why each new leader
 * writes a {@link LogEntry.Kind#LEADER_CHANGE} entry first.
 *
 * <h2>Roles and transitions</h2>
 * <pre>
 *   Unattached/Follower/Resigned/Candidate --election timeout (voter)--> Prospective
 *   Prospective --majority of pre-votes--> Candidate (epoch + 1) --majority of votes--> Leader
 *   Prospective --election timeout--> Prospective (asks again)
 *   Unattached/Prospective/Candidate --BeginQuorumEpoch or fetch answer naming the leader--> Follower
 *   Follower (observer) --election timeout--> Unattached
 *   Leader --no fetches from a majority for checkQuorumMs--> Resigned
 *   any role --message with a higher epoch--> Unattached (or Follower, when the message names the leader)
 * </pre>
 * The pre-vote round (KIP-996) changes no durable state and no epoch. A voter grants a pre-vote only if the
 * prospect's log is at least as up to date as its own and it has not heard from a leader within the election
 * timeout, so a node returning from a partition cannot depose a healthy leader by inflating the epoch.
 * Every transition that changes the epoch, the vote or the known leader writes the {@link ElectionState} before
 * the role changes and before any message is sent. A follower flushes what it appended before it sends the next
 * fetch, because that fetch is what tells the leader the entries are stored.
 *
 * <h2>Driving it</h2>
 * Pure and single-threaded: no threads, sockets or clocks. The driver calls {@link #handle} for each inbound
 * message, {@link #propose} for each client write, and {@link #tick} no later than {@link #nextDeadlineMs()},
 * always passing the current time. Outbound messages go to the {@link RaftTransport}. Not thread-safe.
 *
 * <h2>Snapshots (KIP-630)</h2>
 * The driver owns the state machine, so it writes snapshots: when {@link #snapshotDue} says so (by bytes
 * committed since the latest snapshot and by age, {@link RaftConfig}), it serializes its state as of a committed
 * offset and hands it to {@link #createSnapshot}. The log is then truncated behind the snapshot: its start offset
 * moves to the snapshot's end and only the suffix is kept. A fetch the leader can no longer check or serve from
 * its log (below its log start, or in an epoch older than its snapshot's) is answered with the snapshot's id; the
 * follower downloads it chunk by chunk with FetchSnapshot, checks its size and CRC, installs it (which empties
 * or truncates its own log), and fetches the log from the snapshot's end ({@link SnapshotTransfer} holds both ends
 * of that exchange). The driver notices that {@link #logStartOffset()} passed what it has applied and reloads its
 * state from {@link #readLatestSnapshot()}.
 * The high watermark is checkpointed to disk every {@link RaftConfig#highWatermarkCheckpointMs()}, and a
 * restarted node starts from the larger of that checkpoint and its snapshot's end, so it can serve what it knows
 * is committed before it hears from a leader.
 *
 * <p>Not implemented: voter-set changes, batching of proposals.
 */
public final class RaftNode {

    private static final Logger LOGGER = LoggerFactory.getLogger(RaftNode.class);
    private static final int NONE = ElectionState.NONE;

    private final int nodeId;
    private final List<Integer> voters;
    private final boolean voter;
    private final RaftConfig config;
    private final RaftStorage storage;
    private final RaftTransport transport;
    private final Random random;
    private final EpochIndex epochIndex;
    private final String logPrefix;
    /** Serves the snapshot as leader; downloads and installs one as follower. */
    private final SnapshotTransfer snapshots;

    private final SnapshotSchedule snapshotSchedule;
    /** The commit index, the proposals waiting on it and its checkpoint. */
    private final HighWatermark highWatermark;
    /** Answers fetches as leader. */
    private final FetchServer fetchServer;
    /** Fetches as follower (or to find the leader), and holds the fetch timer. */
    private final FetchClient fetchClient;
    /** Takes snapshots for the driver and reads them back. */
    private final LocalSnapshots localSnapshots;

    private final ElectionTimer electionTimer;
    /** Check quorum and re-announcement, while this node leads. */
    private final LeaderDuties leaderDuties;

    private final VoteRules voteRules;

    private ElectionState electionState;
    private RaftRole role;

    public RaftNode(
            int nodeId,
            Collection<Integer> voters,
            RaftConfig config,
            RaftStorage storage,
            RaftTransport transport,
            Random random,
            long nowMs) {
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("a quorum needs at least one voter");
        }
        this.nodeId = nodeId;
        this.voters = List.copyOf(new TreeSet<>(voters));
        this.voter = this.voters.contains(nodeId);
        this.config = config;
        this.storage = storage;
        this.transport = transport;
        this.random = random;
        this.epochIndex = EpochIndex.rebuild(storage);
        this.electionTimer = new ElectionTimer(config, random);
        this.leaderDuties = new LeaderDuties(nodeId, config, transport);
        this.voteRules = new VoteRules(voter, this.voters);
        this.logPrefix = "[RaftNode " + nodeId + "] ";
        this.snapshots = new SnapshotTransfer(nodeId, config, storage, transport, epochIndex, logPrefix);
        this.snapshotSchedule = new SnapshotSchedule(config);
        this.electionState = storage.electionState();
        this.highWatermark = new HighWatermark(config, storage, snapshotSchedule, logPrefix, nowMs);
        this.fetchServer = new FetchServer(nodeId, config, storage, transport, epochIndex, snapshots, highWatermark);
        this.fetchClient = new FetchClient(
                nodeId,
                this.voters,
                config,
                storage,
                transport,
                random,
                epochIndex,
                snapshots,
                snapshotSchedule,
                highWatermark,
                logPrefix);
        this.localSnapshots = new LocalSnapshots(storage, epochIndex, snapshotSchedule, highWatermark, logPrefix);
        snapshotSchedule.restart(storage, highWatermark.value(), nowMs);
        int epoch = electionState.epoch();
        if (electionState.leaderId() == nodeId) {
            // A leader that restarts has lost what it knew about its followers; it steps down rather than lead on.
            role = new Resigned(epoch);
            resetElectionTimer(nowMs);
        } else if (electionState.hasLeader()) {
            role = new Follower(epoch, electionState.leaderId());
            resetElectionTimer(nowMs);
            fetchClient.scheduleAt(nowMs);
        } else {
            role = new Unattached(epoch, electionState.votedFor());
            resetElectionTimer(nowMs);
            fetchClient.scheduleAt(nowMs);
        }
    }

    // ---------------------------------------------------------------- inputs

    /** Handles one inbound message addressed to this node. */
    public void handle(RaftMessage message, long nowMs) {
        if (message.destination() != nodeId) {
            throw new IllegalArgumentException(logPrefix + "message for node " + message.destination());
        }
        if (message.epoch() > epoch()) {
            onHigherEpoch(message, nowMs);
        }
        if (message instanceof VoteRequest request) {
            handleVoteRequest(request, nowMs);
        } else if (message instanceof VoteResponse response) {
            handleVoteResponse(response, nowMs);
        } else if (message instanceof BeginQuorumEpoch begin) {
            handleBeginQuorumEpoch(begin, nowMs);
        } else if (message instanceof FetchRequest request) {
            fetchServer.serve(request, role, leaderId(), nowMs);
        } else if (message instanceof FetchResponse response) {
            handleFetchResponse(response, nowMs);
        } else if (message instanceof FetchSnapshotRequest request) {
            snapshots.serve(request, role, leaderId(), nowMs);
        } else if (message instanceof FetchSnapshotResponse response) {
            handleFetchSnapshotResponse(response, nowMs);
        }
    }

    /**
     * Appends {@code payload} if this node leads. The future completes with the entry's offset once the entry is
     * committed, or fails with {@link NotLeaderException} right away (not leader) or when this node loses the
     * leadership first (outcome unknown: a later leader may still commit it).
     */
    public CompletableFuture<Long> propose(byte[] payload, long nowMs) {
        return propose(List.of(payload), nowMs).get(0);
    }

    /**
     * Appends each payload as its own entry, in order, with one flush for all of them (group commit); otherwise
     * as {@link #propose(byte[], long)}, one future per payload.
     */
    public List<CompletableFuture<Long>> propose(List<byte[]> payloads, long nowMs) {
        List<CompletableFuture<Long>> futures = new ArrayList<>(payloads.size());
        if (!(role instanceof Leader leader)) {
            for (int i = 0; i < payloads.size(); i++) {
                futures.add(
                        CompletableFuture.failedFuture(new NotLeaderException("not the leader", leaderId(), epoch())));
            }
            return futures;
        }
        long first = storage.endOffset();
        for (byte[] payload : payloads) {
            appendLocal(new LogEntry(leader.epoch(), storage.endOffset(), LogEntry.Kind.DATA, payload));
        }
        storage.flush();
        leader.progress().onLocalFlush(storage.endOffset());
        for (int i = 0; i < payloads.size(); i++) {
            futures.add(highWatermark.awaitCommit(first + i));
        }
        highWatermark.maybeAdvanceAsLeader(leader);
        return futures;
    }

    /**
     * Evidence from the driver's transport that {@code peer}'s process is gone: every connection with it closed,
     * or connecting to it was refused. If it is this node's leader, the node stops counting on it: it grants
     * pre-votes from now on, and its election timer (an observer's search for a leader) fires within half the
     * election jitter instead of after the whole timeout. False evidence costs nothing: the pre-vote still fails
     * while a majority hears from a live leader, whose next fetch answer resets the timer.
     */
    public void onPeerUnreachable(int peer, long nowMs) {
        if (role instanceof Follower follower && follower.leaderId() == peer) {
            electionTimer.onLeaderUnreachable(nowMs);
        }
    }

    /** Fires whatever timers expired by {@code nowMs}; harmless to call early or often. */
    public void tick(long nowMs) {
        highWatermark.maybeCheckpoint(nowMs);
        if (role instanceof Leader leader) {
            pollLeader(leader, nowMs);
            return;
        }
        if (nowMs >= electionTimer.deadlineMs()) {
            onElectionTimeout(nowMs);
        } else if (nowMs >= fetchClient.deadlineMs()) {
            fetchClient.onTimeout(role, nowMs);
        }
    }

    /** The time by which {@link #tick} must next be called. */
    public long nextDeadlineMs() {
        long checkpointMs = highWatermark.nextCheckpointMs();
        if (role instanceof Leader) {
            return Math.min(checkpointMs, leaderDuties.nextDeadlineMs());
        }
        return Math.min(checkpointMs, Math.min(electionTimer.deadlineMs(), fetchClient.deadlineMs()));
    }

    // ---------------------------------------------------------------- snapshots, driver side

    /**
     * Whether the driver should take a snapshot now: something was committed since the latest one, and either
     * its payloads reach {@link RaftConfig#maxRecordBytesBetweenSnapshots()} or the latest snapshot (or the
     * start of this node) is {@link RaftConfig#maxSnapshotIntervalMs()} old.
     */
    public boolean snapshotDue(long nowMs) {
        return snapshotSchedule.due(nowMs);
    }

    /**
     * Stores {@code content}, the driver's state after applying every entry below {@code endOffset}, as the
     * snapshot of that prefix, and truncates the log behind it. {@code endOffset} must be committed and beyond
     * the log start. Durable when this returns.
     */
    public SnapshotInfo createSnapshot(long endOffset, byte[] content, long nowMs) {
        return localSnapshots.take(endOffset, content, nowMs);
    }

    /** The latest snapshot, taken here or downloaded from a leader. */
    public Optional<SnapshotInfo> latestSnapshot() {
        return storage.latestSnapshot();
    }

    /**
     * The whole content of the latest snapshot, checked against its size and CRC. A driver whose state is behind
     * {@link #logStartOffset()} loads this, then applies the log from the snapshot's end.
     */
    public byte[] readLatestSnapshot() {
        return localSnapshots.readLatest();
    }

    // ---------------------------------------------------------------- observers of state

    public int nodeId() {
        return nodeId;
    }

    public int epoch() {
        return role.epoch();
    }

    public boolean isLeader() {
        return role instanceof Leader;
    }

    /**
     * Whether this node leads and a majority of voters (itself included) fetched from it within {@code windowMs}, a
     * window that must not reach back to its election (votes are not fetches). While {@code windowMs} is below the
     * election timeout, no other leader can have been elected yet: a voter grants a pre-vote only an election timeout
     * after it last heard from its leader, and any majority shares a voter with the one that fetched.
     */
    public boolean leadershipConfirmedWithin(long nowMs, long windowMs) {
        return role instanceof Leader leader && leaderDuties.confirmedWithin(leader, nowMs, windowMs);
    }

    public boolean isVoter() {
        return voter;
    }

    /** The leader this node knows for its epoch, or -1. */
    public int leaderId() {
        if (role instanceof Leader) {
            return nodeId;
        }
        return role instanceof Follower follower ? follower.leaderId() : NONE;
    }

    /**
     * The quorum as this node sees it if it leads the current epoch (Kafka's DescribeQuorum, answered only by the
     * leader); empty otherwise. An immutable copy: the caller may hand it to other threads.
     */
    public Optional<QuorumDescription> describeQuorum(long nowMs) {
        if (!(role instanceof Leader leader)) {
            return Optional.empty();
        }
        return Optional.of(leader.progress().describe(leader.epoch(), highWatermark.value(), nowMs));
    }

    /** Short name of the current role, for logs and traces. */
    public String roleName() {
        return role.getClass().getSimpleName();
    }

    public long highWatermark() {
        return highWatermark.value();
    }

    /**
     * Whether this node has learned the quorum's high watermark since it started and has the log up to it (as
     * Kafka's metadata loader waits for before it publishes): before that, its committed prefix is only what it
     * checkpointed in an earlier life, and state built from it may be long out of date.
     */
    public boolean hasCaughtUpWithQuorum() {
        return highWatermark.caughtUpWithQuorum();
    }

    public long endOffset() {
        return storage.endOffset();
    }

    /** First offset in the log; the latest snapshot covers everything below it (0 without a snapshot). */
    public long logStartOffset() {
        return storage.startOffset();
    }

    /**
     * An entry of the local log, in {@code [logStartOffset(), endOffset())}; only entries below
     * {@link #highWatermark()} are known to be committed.
     */
    public LogEntry entry(long offset) {
        return storage.entry(offset);
    }

    @Override
    public String toString() {
        return "RaftNode(" + nodeId + " " + roleName() + " epoch=" + epoch() + " leader=" + leaderId() + " start="
                + logStartOffset() + " end=" + endOffset() + " hw=" + highWatermark.value()
                + (snapshots.downloading() ? " " + snapshots.download() : "") + ")";
    }

    // ---------------------------------------------------------------- votes

    private void handleVoteRequest(VoteRequest request, long nowMs) {
        if (request.preVote()) {
            boolean leaderHeard = electionTimer.leaderHeardRecently(nowMs);
            boolean granted = voteRules.mayGrantPreVote(role, request, lastEntry(), leaderHeard);
            transport.send(new VoteResponse(nodeId, request.source(), epoch(), granted, true));
            return;
        }
        boolean granted = request.epoch() == epoch() && voteRules.mayVoteFor(role, request, lastEntry());
        if (granted && !electionState.hasVoted()) {
            persist(new ElectionState(epoch(), request.source(), NONE));
            role = new Unattached(epoch(), request.source());
            resetElectionTimer(nowMs);
        }
        transport.send(new VoteResponse(nodeId, request.source(), epoch(), granted, false));
    }

    private void handleVoteResponse(VoteResponse response, long nowMs) {
        if (response.preVote()) {
            if (role instanceof Prospective prospective
                    && response.epoch() == prospective.epoch()
                    && response.granted()
                    && voters.contains(response.source())
                    && prospective.recordGrant(response.source()) > voters.size() / 2) {
                transitionToCandidate(nowMs);
            }
            return;
        }
        if (role instanceof Candidate candidate
                && response.epoch() == candidate.epoch()
                && response.granted()
                && voters.contains(response.source())) {
            if (candidate.recordGrant(response.source()) > voters.size() / 2) {
                transitionToLeader(nowMs);
            }
        }
    }

    private void handleBeginQuorumEpoch(BeginQuorumEpoch begin, long nowMs) {
        if (begin.epoch() < epoch()) {
            return;
        }
        int known = knownLeaderOfEpoch();
        if (known == begin.source()) {
            if (role instanceof Follower) {
                onLeaderContact(nowMs);
            }
            return;
        }
        if (known != NONE) {
            throw new IllegalStateException(
                    logPrefix + "two leaders in epoch " + epoch() + ": " + known + " and " + begin.source());
        }
        transitionToFollower(begin.epoch(), begin.source(), nowMs);
    }

    // ---------------------------------------------------------------- leader

    private void pollLeader(Leader leader, long nowMs) {
        if (!leaderDuties.poll(leader, nowMs)) {
            transitionToResigned(nowMs);
        }
    }

    // ---------------------------------------------------------------- fetch, follower side

    private void handleFetchResponse(FetchResponse response, long nowMs) {
        Optional<Follower> fromLeader =
                answerFromLeader(response.epoch(), response.source(), response.error(), response.leaderId(), nowMs);
        if (fromLeader.isEmpty() || response.error() != FetchError.NONE || !fetchClient.answersCurrentLog(response)) {
            return;
        }
        onLeaderContact(nowMs);
        fetchClient.onFetchResponse(fromLeader.get(), response, nowMs);
    }

    private void handleFetchSnapshotResponse(FetchSnapshotResponse response, long nowMs) {
        Optional<Follower> fromLeader =
                answerFromLeader(response.epoch(), response.source(), response.error(), response.leaderId(), nowMs);
        if (fromLeader.isEmpty() || !snapshots.expects(response)) {
            return;
        }
        onLeaderContact(nowMs);
        fetchClient.onFetchSnapshotResponse(fromLeader.get(), response, nowMs);
    }

    /**
     * The preamble every answer to this node's pulls goes through ({@link ResponsePreamble}): follows the leader
     * the answer names if this node knew none, and returns the follower role only if the answer is from the leader
     * it follows, so the caller goes on to the payload.
     */
    private Optional<Follower> answerFromLeader(int epoch, int source, FetchError error, int leaderId, long nowMs) {
        switch (ResponsePreamble.check(nodeId, role, epoch, source, error, leaderId)) {
            case FOLLOW_NAMED_LEADER -> {
                transitionToFollower(epoch, ResponsePreamble.namedLeader(source, error, leaderId), nowMs);
                return Optional.empty();
            }
            case FROM_LEADER -> {
                return Optional.of((Follower) role);
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    /** The leader this node follows was heard from: it refuses pre-votes and waits for it a while longer. */
    private void onLeaderContact(long nowMs) {
        electionTimer.onLeaderContact(nowMs, electionArmed());
    }

    private void onElectionTimeout(long nowMs) {
        if (voter) {
            transitionToProspective(nowMs);
        } else {
            transitionToUnattached(epoch(), nowMs);
        }
    }

    // ---------------------------------------------------------------- transitions

    private void onHigherEpoch(RaftMessage message, long nowMs) {
        if (message instanceof BeginQuorumEpoch) {
            transitionToFollower(message.epoch(), message.source(), nowMs);
        } else if (message instanceof FetchResponse response
                && response.leaderId() != NONE
                && response.leaderId() != nodeId) {
            transitionToFollower(message.epoch(), response.leaderId(), nowMs);
        } else {
            transitionToUnattached(message.epoch(), nowMs);
        }
    }

    private void transitionToUnattached(int epoch, long nowMs) {
        snapshots.cancel(); // a download belongs to one leader in one epoch
        int votedFor = epoch == electionState.epoch() ? electionState.votedFor() : NONE;
        persist(new ElectionState(epoch, votedFor, NONE));
        leaveLeadership();
        role = new Unattached(epoch, votedFor);
        resetElectionTimer(nowMs);
        fetchClient.scheduleAt(nowMs + config.fetchBackoffMs());
        LOGGER.debug("{}unattached in epoch {}", logPrefix, epoch);
    }

    private void transitionToFollower(int epoch, int leaderId, long nowMs) {
        snapshots.cancel(); // a download belongs to one leader in one epoch
        int votedFor = epoch == electionState.epoch() ? electionState.votedFor() : NONE;
        persist(new ElectionState(epoch, votedFor, leaderId));
        leaveLeadership();
        role = new Follower(epoch, leaderId);
        onLeaderContact(nowMs);
        fetchClient.send(leaderId, epoch, nowMs);
        LOGGER.debug("{}following {} in epoch {}", logPrefix, leaderId, epoch);
    }

    private void transitionToProspective(long nowMs) {
        snapshots.cancel(); // a download belongs to one leader in one epoch
        int leaderId = NONE;
        if (role instanceof Follower follower) {
            leaderId = follower.leaderId();
        } else if (role instanceof Prospective previous) {
            leaderId = previous.leaderId();
        }
        Prospective prospective = new Prospective(epoch(), nodeId, leaderId);
        role = prospective;
        resetElectionTimer(nowMs);
        fetchClient.scheduleAt(
                leaderId == NONE
                        ? Long.MAX_VALUE
                        : Math.min(fetchClient.deadlineMs(), nowMs + config.fetchTimeoutMs()));
        LOGGER.debug("{}prospective in epoch {}", logPrefix, epoch());
        if (prospective.grants() > voters.size() / 2) {
            transitionToCandidate(nowMs);
            return;
        }
        askForVotes(epoch(), true);
    }

    private void transitionToCandidate(long nowMs) {
        snapshots.cancel(); // a download belongs to one leader in one epoch
        int epoch = epoch() + 1;
        storage.flush(); // the log end we advertise in the vote request must survive a crash
        persist(new ElectionState(epoch, nodeId, NONE));
        leaveLeadership();
        Candidate candidate = new Candidate(epoch, nodeId);
        role = candidate;
        resetElectionTimer(nowMs);
        fetchClient.scheduleAt(Long.MAX_VALUE);
        LOGGER.debug("{}candidate in epoch {}", logPrefix, epoch);
        if (candidate.grants() > voters.size() / 2) {
            transitionToLeader(nowMs);
            return;
        }
        askForVotes(epoch, false);
    }

    /** Sends every other voter a (pre-)vote request for {@code epoch} with this node's last log entry. */
    private void askForVotes(int epoch, boolean preVote) {
        OffsetAndEpoch last = lastEntry();
        for (int other : voters) {
            if (other != nodeId) {
                transport.send(new VoteRequest(nodeId, other, epoch, last, preVote));
            }
        }
    }

    private void transitionToLeader(long nowMs) {
        snapshots.cancel(); // a download belongs to one leader in one epoch
        int epoch = epoch();
        persist(new ElectionState(epoch, nodeId, nodeId));
        LeaderProgress progress = new LeaderProgress(nodeId, voters, nowMs);
        Leader leader = new Leader(epoch, progress);
        role = leader;
        appendLocal(LogEntry.leaderChange(epoch, storage.endOffset(), nodeId));
        storage.flush();
        progress.onLocalFlush(storage.endOffset());
        electionTimer.stop();
        fetchClient.scheduleAt(Long.MAX_VALUE);
        leaderDuties.start(nowMs);
        LOGGER.debug("{}leader in epoch {}", logPrefix, epoch);
        for (int other : voters) {
            if (other != nodeId) {
                transport.send(new BeginQuorumEpoch(nodeId, other, epoch));
            }
        }
        highWatermark.maybeAdvanceAsLeader(leader);
    }

    private void transitionToResigned(long nowMs) {
        snapshots.cancel(); // a download belongs to one leader in one epoch
        leaveLeadership();
        role = new Resigned(epoch());
        resetElectionTimer(nowMs);
        fetchClient.scheduleAt(Long.MAX_VALUE);
        LOGGER.debug("{}resigned in epoch {}", logPrefix, epoch());
    }

    /** Fails pending proposals: whether they commit is now up to the next leader. */
    private void leaveLeadership() {
        if (!(role instanceof Leader)) {
            return;
        }
        leaderDuties.stop();
        highWatermark.failPendingProposals(epoch());
    }

    // ---------------------------------------------------------------- helpers

    /** The leader of the current epoch as far as this node knows, including itself. */
    private int knownLeaderOfEpoch() {
        return ResponsePreamble.knownLeaderOfEpoch(role, nodeId);
    }

    private OffsetAndEpoch lastEntry() {
        return new OffsetAndEpoch(storage.endOffset(), epochIndex.lastEpoch());
    }

    private void appendLocal(LogEntry entry) {
        storage.append(entry);
        epochIndex.onAppend(entry);
    }

    private void persist(ElectionState next) {
        if (next.epoch() < electionState.epoch()) {
            throw new IllegalStateException(logPrefix + "epoch would go back: " + electionState + " -> " + next);
        }
        if (!next.equals(electionState)) {
            storage.writeElectionState(next);
            electionState = next;
        }
    }

    private void resetElectionTimer(long nowMs) {
        electionTimer.reset(nowMs, electionArmed());
    }

    /** Whether this node has an election timeout: a voter always; an observer only while it follows a leader. */
    private boolean electionArmed() {
        return voter || role instanceof Follower;
    }
}
