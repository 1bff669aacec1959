package dev.strait.testkit.nemesis;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short nemesis run of the build ({@link ShortSchedule}): one seeded schedule of every fault kind (pauses shorter
 * and longer than the session timeout, the leader isolated from its followers and the controller, a follower cut from
 * its leader, a minority split, flapping links, kills) against three Strait nodes: no acknowledged record lost or
 * moved, no offset holding two values, committed offsets never back, a healthy cluster after healing. Each run prints
 * its seed and schedule; replay a failure with the printed {@code bin/bench nemesis} command. The same schedule runs
 * against Apache Kafka 4.1.1 in {@link NemesisKafkaBaselineIT}, whose verdict shows the harness does not cry wolf.
 */
class NemesisIT {
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void straitKeepsEveryAcknowledgedRecordThroughTheSchedule() {
        RunReport report = ShortSchedule.run(SystemKind.STRAIT);
        ShortSchedule.assertClean(report, Set.of());
    }
}
