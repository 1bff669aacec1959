/**
 * The Raft quorum that replicates the cluster metadata log (KRaft-style: Vote, BeginQuorumEpoch and pull-based
 * Fetch with diverging-epoch truncation; snapshots, log truncation behind them and FetchSnapshot as in KIP-630).
 * {@link dev.strait.broker.raft.RaftNode} is a pure state machine: no threads, sockets, clocks or Kafka classes.
 * The broker drives it from one thread through three ports: inbound messages and proposals in,
 * {@link dev.strait.broker.raft.RaftTransport} out, and {@link dev.strait.broker.raft.RaftStorage}
 * ({@link dev.strait.broker.raft.FileRaftStorage} in production) for the durable log, the latest snapshot, the
 * high-watermark checkpoint and the election state. Time is passed into every call. The same code runs in the
 * deterministic simulation tests, which stand in fakes for the network, the disk and the clock.
 */
package dev.strait.broker.raft;
