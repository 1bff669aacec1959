package dev.strait.testkit.nemesis;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Power cuts against three Strait nodes whose data directories are lazy disks ({@link LazyDisk}): the short schedule
 * of the build with only the power family (one node, a lone leader, a cut-off minority), tolerating nothing. Disabled
 * until the broker syncs what it acknowledges: on the lazydisk branch, before those fixes, the companion broker loses
 * acknowledged records when its power is cut. Remove {@code @Disabled} when they land; with
 * {@code -Dnemesis.faultPhaseS=45} (the default) it takes about three minutes.
 */
@Disabled("the companion broker loses acknowledged records on power loss until its fsync fixes land (issue 22)")
class PowerLossIT {
    private static final Set<FaultKind> POWER =
            EnumSet.of(FaultKind.POWER_LOSS_NODE, FaultKind.POWER_LOSS_LONE_LEADER, FaultKind.POWER_LOSS_MINORITY);

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void straitKeepsEveryAcknowledgedRecordThroughPowerCuts() {
        LazyDiskTest.requireLazyDisk();
        RunReport report = ShortSchedule.run(SystemKind.STRAIT, POWER);
        ShortSchedule.assertClean(report, Set.of());
    }
}
