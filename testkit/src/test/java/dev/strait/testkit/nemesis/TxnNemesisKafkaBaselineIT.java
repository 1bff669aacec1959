package dev.strait.testkit.nemesis;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link TxnNemesisIT}'s transactional run against three Apache Kafka 4.1.1 nodes: the reference for the
 * transactional checker. A class of its own so that it runs beside the Strait run, in another test JVM. Kafka is held
 * to the same line as Strait; its figures are printed with the report.
 */
class TxnNemesisKafkaBaselineIT {
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void kafkaKeepsTransactionsAtomicUnderTheSameSchedule() {
        RunReport report = ShortSchedule.run(SystemKind.KAFKA, ShortSchedule.WITHOUT_POWER, WorkloadSpec.txnDefaults());
        TxnNemesisIT.assertTransactional(report);
        ShortSchedule.assertClean(report, Set.of());
    }
}
