package dev.strait.testkit.nemesis;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;

/**
 * Everything one run needs besides the seed.
 *
 * @param system   Strait or Apache Kafka
 * @param schedule what the schedule is generated from
 * @param workload the producers and consumers
 * @param cluster  broker settings both systems get
 * @param workDir  where each run makes its directory (node data and logs)
 * @param keepOnAnomaly keep a run's directory when it found anomalies or failed
 * @param events   the live log (faults as they are injected, recovery)
 * @param recoveryTimeout how long the cluster may take to be healthy again, and to acknowledge writes on every
 *                 partition, after the faults heal (60 s unless a run says otherwise)
 * @param writeBackAge when the schedule cuts power: how old an unsynced write on a node's lazy disk gets before it
 *                 is written back and survives a power cut (the kernel's 30 s unless a run says otherwise)
 */
public record RunOptions(
        SystemKind system,
        ScheduleSpec schedule,
        WorkloadSpec workload,
        NemesisCluster.Config cluster,
        Path workDir,
        boolean keepOnAnomaly,
        PrintStream events,
        Duration recoveryTimeout,
        Duration writeBackAge) {

    public static final Duration DEFAULT_RECOVERY_TIMEOUT = Duration.ofSeconds(60);

    public RunOptions(
            SystemKind system,
            ScheduleSpec schedule,
            WorkloadSpec workload,
            NemesisCluster.Config cluster,
            Path workDir,
            boolean keepOnAnomaly,
            PrintStream events) {
        this(
                system,
                schedule,
                workload,
                cluster,
                workDir,
                keepOnAnomaly,
                events,
                DEFAULT_RECOVERY_TIMEOUT,
                LazyDisk.DEFAULT_WRITE_BACK_AGE);
    }

    /** The same options with another recovery bound. */
    public RunOptions withRecoveryTimeout(Duration timeout) {
        return new RunOptions(
                system, schedule, workload, cluster, workDir, keepOnAnomaly, events, timeout, writeBackAge);
    }

    /** The same options with another write-back age for the lazy disks. */
    public RunOptions withWriteBackAge(Duration age) {
        return new RunOptions(
                system, schedule, workload, cluster, workDir, keepOnAnomaly, events, recoveryTimeout, age);
    }

    /** The flags of {@code bin/bench nemesis} that replay a run with this seed. */
    public String replayCommand(long seed) {
        return "bin/bench nemesis --system " + system.flag() + " --runs 1 --seed " + seed + " " + schedule.flags()
                + " --rate " + workload.recordsPerSecond()
                + (workload.kind() == WorkloadSpec.Kind.TXN ? " --workload txn" : "")
                + (FaultKind.anyPower(schedule.kinds()) ? " --write-back-age-s " + writeBackAge.toSeconds() : "")
                + (cluster.flushOnAck() ? " --flush-on-ack" : "")
                + (cluster.kafkaElr() == NemesisCluster.KafkaElr.DEFAULT
                        ? ""
                        : " --kafka-elr " + cluster.kafkaElr().name().toLowerCase(Locale.ROOT));
    }
}
