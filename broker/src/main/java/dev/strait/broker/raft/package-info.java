/**
 * The Raft quorum that replicates the cluster metadata log (KRaft-style: Vote, BeginQuorumEpoch and pull-based
 * Fetch with diverging-epoch truncation; snapshots, log truncation behind them and FetchSnapshot as in KIP-630).
 * {@link dev.strait.broker.raft.RaftNode} is a pure state machine: no threads, sockets, clocks or Kafka classes.
 * The broker drives it from one thread through three ports: inbound messages and proposals in,
 * {@link dev.strait.broker.raft.RaftTransport} out, and {@link dev.strait.broker.raft.RaftStorage}
 * ({@link dev.strait.broker.raft.FileRaftStorage} in production) for the durable log, the latest snapshot, the
 * high-watermark checkpoint and the election state. Time is passed into every call. The same code runs in the
 * deterministic simulation tests, which stand in fakes for the network, the disk and the clock.
 *
 * <p>{@code RaftNode} keeps the roles and the transitions between them ({@code RaftRole}, {@code ElectionState}); the
 * rest is in classes it owns, all on its thread: {@code ElectionTimer} and {@code VoteRules} (when to stand, whom to
 * vote for), {@code LeaderDuties} (check quorum, re-announcing the leadership), {@code HighWatermark} (the commit index
 * and the proposals waiting on it), {@code FetchServer} and {@code FetchClient} (the leader's and the follower's side
 * of Fetch, behind {@code RequestPreamble} and {@code ResponsePreamble}), {@code SnapshotTransfer} (FetchSnapshot, both
 * sides), {@code LocalSnapshots} and {@code SnapshotSchedule} (the driver's snapshots and when the next is due),
 * {@code LeaderProgress} and {@code EpochIndex} (followers' progress, the log's epochs).
 */
package dev.strait.broker.raft;
