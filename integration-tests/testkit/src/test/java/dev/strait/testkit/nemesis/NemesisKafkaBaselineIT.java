package dev.strait.testkit.nemesis;

import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short nemesis schedule of {@link NemesisIT} against three Apache Kafka 4.1.1 nodes: the reference that shows the
 * harness and its checker do not cry wolf. A class of its own so that it runs beside the Strait run, in another test
 * JVM.
 *
 * <p>Kafka is allowed one kind of anomaly Strait is not: records written twice (and the reordering the second copy
 * makes). Seen on seed 47: the leader of a partition and the controller were SIGKILLed while batches were in flight;
 * the restarted node that became leader had rebuilt its producer state from its producer snapshot, which keeps only
 * the last batch of each producer (sequence 303 at offset 607), so the retry of the batch with sequences 301-302,
 * already in its log at 602-603, was answered OUT_OF_ORDER_SEQUENCE_NUMBER instead of DUPLICATE_SEQUENCE_NUMBER;
 * kafka-clients 4.1.1 then bumped the producer epoch and sent the same records again as epoch 3, sequences 0-1, at
 * 608-609 (read from the kept segment files). That is Kafka's behaviour, not the harness's, and the campaign counts it
 * as an anomaly of Kafka's; this test only makes sure nothing else shows up.
 */
class NemesisKafkaBaselineIT {
    /** Kafka 4.1.1's idempotence gap after a restart (see the class comment); nothing else is excused. */
    private static final Set<Anomaly.Type> KAFKA_KNOWN = EnumSet.of(Anomaly.Type.DUPLICATED, Anomaly.Type.REORDERED);

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void kafkaLosesNothingUnderTheSameSchedule() {
        RunReport report = ShortSchedule.run(SystemKind.KAFKA);
        ShortSchedule.assertClean(report, KAFKA_KNOWN);
    }
}
