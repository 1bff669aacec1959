package dev.strait.testkit.nemesis;

import java.io.PrintStream;
import java.nio.file.Path;

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
 */
public record RunOptions(
        SystemKind system,
        ScheduleSpec schedule,
        WorkloadSpec workload,
        NemesisCluster.Settings cluster,
        Path workDir,
        boolean keepOnAnomaly,
        PrintStream events) {

    /** The flags of {@code bin/bench nemesis} that replay a run with this seed. */
    public String replayCommand(long seed) {
        return "bin/bench nemesis --system " + system.flag() + " --runs 1 --seed " + seed + " " + schedule.flags()
                + " --rate " + workload.recordsPerSecond();
    }
}
