/**
 * A Jepsen-style nemesis for three-node KRaft clusters, Strait's companion broker and Apache Kafka 4.1.1 alike.
 * <ul>
 *   <li>{@link dev.strait.testkit.nemesis.NetNamespaces}: one network namespace per node behind a bridge; a link
 *       between two nodes is cut with {@code tc} (u32 filter into a class whose queue holds nothing), clients on
 *       the bridge always reach every node; {@code cutPort} cuts only one TCP port of a link (the client port: replication
 *       stops, the controller quorum still talks). Namespaces are named {@code nm<run id>...} and removed at the end, and
 *       at the next start if a run was killed.</li>
 *   <li>{@link dev.strait.testkit.nemesis.NemesisCluster}: the nodes as child JVMs inside the namespaces, signalled by
 *       pid (SIGSTOP, SIGCONT, SIGKILL, SIGTERM); it finds the active controller (DescribeQuorum, or for Strait the
 *       nodes' logs).</li>
 *   <li>{@link dev.strait.testkit.nemesis.Schedule}: the faults, a pure function of a seed
 *       ({@link dev.strait.testkit.nemesis.FaultKind}: pauses shorter and longer than the session timeout, leader
 *       isolated from followers and controller, follower cut from its leader, minority split, flapping links, leader
 *       and controller killed, controller killed during a big CreateTopics, rolling restarts);
 *       {@link dev.strait.testkit.nemesis.FaultInjector} applies one fault and heals it.</li>
 *   <li>{@link dev.strait.testkit.nemesis.Workload}: idempotent {@code acks=all} producers whose request timeout is
 *       shorter than the faults, a consumer group committing after every poll, a poller reading the committed offsets;
 *       all of it recorded in a {@link dev.strait.testkit.nemesis.History}.</li>
 *   <li>{@link dev.strait.testkit.nemesis.Checker}: the oracle over the history and the log read back (acknowledged
 *       records exactly once at their offsets and in order, one value per offset, committed offsets never back);
 *       {@link dev.strait.testkit.nemesis.NemesisRun} adds the liveness checks after healing (live leaders, full
 *       ISRs and agreeing metadata on every node within 60 s; writes acknowledged again).</li>
 * </ul>
 * {@code NemesisIT} and {@code NemesisKafkaBaselineIT} run one short schedule per system in the build; {@code bin/bench nemesis} runs long campaigns.
 *
 * <p>Transactions ({@link dev.strait.testkit.nemesis.WorkloadSpec.Kind#TXN}, {@code bin/bench nemesis --workload txn}):
 * {@link dev.strait.testkit.nemesis.TxnWorkload} runs transactional producers writing each transaction to several
 * partitions (a seeded fifth aborted) and read_committed readers through the faults; after healing, a final
 * read_committed and read_uncommitted read, and {@link dev.strait.testkit.nemesis.TxnChecker} counts aborted records
 * seen, committed records missing, transactions partly visible (a commit that threw may have gone either way, but all
 * or nothing), duplicates and reordering. {@code TxnNemesisIT} runs the short schedule with it
 * against Strait; {@code bin/bench nemesis --workload txn} runs campaigns for either system.
 *
 * <p>Committed offsets: the verdict is about durability (an acknowledged commit never goes back, the final
 * committed offset is not below any acknowledged commit). An OffsetFetch that answers below a commit acknowledged
 * before it began is a stale read. For Strait (which serves an offset only once the offsets partition's high
 * watermark passed it) it counts as an anomaly. For Apache Kafka 4.1.1 it is reported and not counted, because Kafka
 * gives such answers by design: its group coordinator serves a plain read ({@code requireStable=false}, as
 * {@code Admin#listConsumerGroupOffsets} sends it) from its state as of its last committed offset (the read event of
 * {@code CoordinatorRuntime} passes {@code lastCommittedOffset}), and a coordinator that has just loaded the offsets
 * partition on a new leader sets that to the local high watermark ({@code CoordinatorLoaderImpl} calls
 * {@code updateLastCommittedOffset(log.highWatermark)}). A new leader's high watermark lags the old leader's until
 * the followers fetch from it, so for that moment the answer is an older commit; a leader cut off from the controller
 * that has not yet learned it was replaced answers from its own state too. Kafka promises that an acknowledged commit
 * survives, not that every OffsetFetch sees the latest one.
 *
 * <p>Power loss ({@link dev.strait.testkit.nemesis.FaultKind.Family#POWER}): when the schedule holds a power fault,
 * every node's data directory is a {@link dev.strait.testkit.nemesis.LazyDisk}, a FUSE file system that keeps writes
 * neither fsynced nor older than the write-back age (30 s) in memory; a power fault SIGKILLs the node and drops them.
 * The lone-leader power cut cuts only replication between a partition's leader and its followers until the ISR is
 * the leader alone, then cuts the leader's power (issue 22's first defect). {@code power-loss-all} cuts every node at
 * once and is only allowed in the fsync mode ({@code NemesisCluster.Config#flushOnAck}); neither {@code all} nor
 * {@code power} selects it.
 *
 * <p>After every run (power or not), every in-sync replica's segment files below the leader's high watermark are read
 * ({@link dev.strait.testkit.nemesis.ReplicaFiles}) and compared with the leader's, record by record
 * ({@link dev.strait.testkit.nemesis.Checker#checkReplicas}): a difference is a {@code REPLICA_DIVERGED} anomaly.
 */
package dev.strait.testkit.nemesis;
