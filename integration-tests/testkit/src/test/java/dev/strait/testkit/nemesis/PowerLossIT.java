package dev.strait.testkit.nemesis;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts against three Strait nodes whose data directories are lazy disks ({@link LazyDisk}): the short schedule
 * of the build with only the power family (one node; a lone leader: replication cut between the leader and its
 * followers, the controller port open, until the ISR is the leader alone, then the leader's power; a cut-off
 * minority), tolerating nothing, replicas compared below the high watermark. A power cut
 * also gives the node a new boot id, so it registers as after an unclean shutdown and leaves every ISR and ELR
 * (issue 22). About a minute with {@code -Dnemesis.faultPhaseS=45} (the default).
 */
class PowerLossIT {
    private static final Set<FaultKind> POWER =
            EnumSet.of(FaultKind.POWER_LOSS_NODE, FaultKind.POWER_LOSS_LONE_LEADER, FaultKind.POWER_LOSS_MINORITY);

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void straitKeepsEveryAcknowledgedRecordThroughPowerCuts() {
        LazyDisk.require();
        RunReport report = ShortSchedule.run(SystemKind.STRAIT, POWER);
        ShortSchedule.assertClean(report, Set.of());
    }
}
