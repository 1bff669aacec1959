package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CheckerTest {

    /** Producer w1.0 wrote numbers 0..n-1 to partition 0 at offsets 0..n-1, all acknowledged. */
    private static History cleanHistory(int n) {
        History h = new History();
        for (int i = 0; i < n; i++) {
            h.acked("w1.0", 0, i, i);
        }
        return h;
    }

    private static List<Checker.LogRecord> log(int n) {
        List<Checker.LogRecord> log = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            log.add(new Checker.LogRecord(i, "w1.0:0:" + i));
        }
        return log;
    }

    @Test
    void aCleanHistoryHasNoAnomaly() {
        History h = cleanHistory(100);
        for (int i = 0; i < 50; i++) {
            h.consumed(0, i, "w1.0:0:" + i);
        }
        h.offsetCommitted(0, 20, 1, 2, "c1");
        h.committedOffsetRead(0, 20, 3, 4);
        h.offsetCommitted(0, 50, 5, 6, "c1");
        assertThat(Checker.check(h.snapshot(), Map.of(0, log(100)))).isEmpty();
    }

    @Test
    void anUnacknowledgedRecordMayBeMissingOrPresent() {
        History h = cleanHistory(10);
        List<Checker.LogRecord> log = log(10);
        log.add(new Checker.LogRecord(10, "w1.0:0:10")); // sent, never acknowledged, written anyway
        assertThat(Checker.check(h.snapshot(), Map.of(0, log))).isEmpty();
    }

    @Test
    void theIssuesLossIsFound() {
        // Acknowledged at 5..7, then truncated away and the offsets reused by another producer (defect 1's shape).
        History h = cleanHistory(8);
        List<Checker.LogRecord> log = new ArrayList<>(log(5));
        log.add(new Checker.LogRecord(5, "w2.0:0:0"));
        log.add(new Checker.LogRecord(6, "w2.0:0:1"));
        h.acked("w2.0", 0, 0, 5);
        h.acked("w2.0", 0, 1, 6);
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log));
        assertThat(anomalies)
                .extracting(Anomaly::type)
                .containsExactlyInAnyOrder(Anomaly.Type.LOST, Anomaly.Type.OFFSET_CONFLICT);
        Anomaly lost = anomalies.stream()
                .filter(a -> a.type() == Anomaly.Type.LOST)
                .findFirst()
                .orElseThrow();
        assertThat(lost.count()).isEqualTo(3);
        assertThat(lost.partition()).isZero();
        assertThat(lost.detail())
                .contains("offsets 5-7")
                .contains("w1.0:0:5 at 5 (now w2.0:0:0)")
                .contains("w1.0:0:7 at 7 (now past the log end 7)");
    }

    @Test
    void aRecordAtAnotherOffsetIsMoved() {
        History h = cleanHistory(3);
        List<Checker.LogRecord> log = List.of(
                new Checker.LogRecord(0, "w1.0:0:0"),
                new Checker.LogRecord(1, "x:0:9"),
                new Checker.LogRecord(2, "w1.0:0:1"),
                new Checker.LogRecord(3, "w1.0:0:2"));
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log));
        assertThat(anomalies).extracting(Anomaly::type).contains(Anomaly.Type.MOVED, Anomaly.Type.OFFSET_CONFLICT);
        assertThat(anomalies.stream()
                        .filter(a -> a.type() == Anomaly.Type.MOVED)
                        .findFirst()
                        .orElseThrow()
                        .count())
                .isEqualTo(2);
    }

    @Test
    void aRecordTwiceInTheLogIsDuplicated() {
        History h = cleanHistory(3);
        List<Checker.LogRecord> log = new ArrayList<>(log(3));
        log.add(new Checker.LogRecord(3, "w1.0:0:2"));
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.DUPLICATED);
        assertThat(anomalies.get(0).detail()).contains("w1.0:0:2 at [2, 3]");
    }

    @Test
    void twoValuesAtOneOffsetSeenByConsumersConflict() {
        History h = cleanHistory(3);
        h.consumed(0, 3, "w9.0:0:0"); // read below the high watermark, later replaced
        List<Checker.LogRecord> log = new ArrayList<>(log(3));
        log.add(new Checker.LogRecord(3, "w9.0:0:1"));
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.OFFSET_CONFLICT);
        assertThat(anomalies.get(0).detail())
                .contains("offset 3")
                .contains("consumed w9.0:0:0")
                .contains("read back w9.0:0:1");
    }

    @Test
    void aConsumedRecordPastTheLogEndVanished() {
        History h = cleanHistory(3);
        h.consumed(0, 5, "w9.0:0:0");
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log(3)));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.VANISHED);
    }

    @Test
    void acknowledgementsOutOfProducerOrderAreReordered() {
        History h = new History();
        h.acked("w1.0", 0, 0, 1);
        h.acked("w1.0", 0, 1, 0);
        List<Checker.LogRecord> log =
                List.of(new Checker.LogRecord(0, "w1.0:0:1"), new Checker.LogRecord(1, "w1.0:0:0"));
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.REORDERED);
        assertThat(anomalies.get(0).count()).isEqualTo(2);
    }

    @Test
    void aLaterCommitBelowAnAcknowledgedOneIsARegression() {
        History h = cleanHistory(10);
        h.offsetCommitted(0, 8, 10, 20, "c1");
        h.offsetCommitted(0, 6, 30, 40, "c2"); // the new member started from a committed offset that went back
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log(10)));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.COMMIT_REGRESSION);
        assertThat(anomalies.get(0).detail()).contains("commit of 6 (c2").contains("after commit of 8 (c1");
    }

    @Test
    void overlappingCommitsMayLandInEitherOrder() {
        History h = cleanHistory(10);
        h.offsetCommitted(0, 8, 10, 30, "c1");
        h.offsetCommitted(0, 6, 20, 40, "c2");
        assertThat(Checker.check(h.snapshot(), Map.of(0, log(10)))).isEmpty();
    }

    @Test
    void aFinalCommittedOffsetBelowAnAcknowledgedCommitIsARegression() {
        History h = cleanHistory(10);
        h.offsetCommitted(0, 8, 10, 20, "c1");
        h.finalCommitted(Map.of(0, 5L));
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log(10)));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.COMMIT_REGRESSION);
        assertThat(anomalies.get(0).detail()).contains("final committed offset is 5");
    }

    private static History staleRead() {
        History h = cleanHistory(10);
        h.offsetCommitted(0, 8, 10, 20, "c1");
        h.committedOffsetRead(0, 5, 30, 40); // began after the commit of 8 was acknowledged
        h.committedOffsetRead(0, 5, 15, 25); // concurrent with it: may see the old value, not even stale
        h.finalCommitted(Map.of(0, 8L));
        return h;
    }

    @Test
    void aStaleOffsetReadIsReportedButNotCountedForKafka() {
        List<Anomaly> anomalies = Checker.check(staleRead().snapshot(), Map.of(0, log(10)), Checker.Rules.KAFKA);
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.STALE_OFFSET_READ);
        assertThat(anomalies.get(0).count()).isEqualTo(1);
        assertThat(anomalies.get(0).counted()).isFalse();
    }

    @Test
    void aStaleOffsetReadCountsForStrait() {
        List<Anomaly> anomalies = Checker.check(staleRead().snapshot(), Map.of(0, log(10)), Checker.Rules.STRAIT);
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.STALE_OFFSET_READ);
        assertThat(anomalies.get(0).count()).isEqualTo(1);
        assertThat(anomalies.get(0).counted()).as("counted for Strait").isTrue();
        assertThat(anomalies.get(0).detail())
                .contains("committed offset read 5")
                .contains("after commit of 8");
    }

    @Test
    void aConsumedOffsetThatBecameAGapVanished() {
        // Offset 5 was read by a consumer (never acknowledged to its producer); the log now skips it.
        History h = cleanHistory(5);
        h.consumed(0, 5, "w1.0:0:5");
        List<Checker.LogRecord> log = new ArrayList<>(log(5));
        log.add(new Checker.LogRecord(6, "w1.0:0:6"));
        List<Anomaly> anomalies = Checker.check(h.snapshot(), Map.of(0, log));
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.VANISHED);
        assertThat(anomalies.get(0).detail()).contains("offsets 5").contains("a gap");
    }

    private static List<Checker.StoredRecord> stored(int n) {
        List<Checker.StoredRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(new Checker.StoredRecord(i, null, "w1.0:0:" + i, "[]"));
        }
        return records;
    }

    @Test
    void replicasThatAgreeBelowTheHighWatermarkAreFine() {
        List<Checker.StoredRecord> follower = stored(8); // behind the leader, but only above the high watermark
        Map<Integer, Checker.ReplicaLogs> replicas =
                Map.of(0, new Checker.ReplicaLogs(1, 8, Map.of(1, stored(10), 2, follower, 3, stored(9))));
        assertThat(Checker.checkReplicas(replicas)).isEmpty();
    }

    @Test
    void aReplicaMissingARecordBelowTheHighWatermarkDiverged() {
        List<Checker.StoredRecord> holed = new ArrayList<>(stored(10));
        holed.remove(4);
        Map<Integer, Checker.ReplicaLogs> replicas =
                Map.of(2, new Checker.ReplicaLogs(1, 10, Map.of(1, stored(10), 2, holed, 3, stored(10))));
        List<Anomaly> anomalies = Checker.checkReplicas(replicas);
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.REPLICA_DIVERGED);
        assertThat(anomalies.get(0).partition()).isEqualTo(2);
        assertThat(anomalies.get(0).count()).isEqualTo(1);
        assertThat(anomalies.get(0).detail())
                .contains("node 2")
                .contains("offset 4")
                .contains("missing");
    }

    @Test
    void aReplicaWithOtherContentsAtAnOffsetDiverged() {
        List<Checker.StoredRecord> other = new ArrayList<>(stored(10));
        other.set(7, new Checker.StoredRecord(7, null, "w1.0:0:7", "[h=1]")); // same value, other headers
        other.set(8, new Checker.StoredRecord(8, null, "w2.0:0:0", "[]"));
        Map<Integer, Checker.ReplicaLogs> replicas =
                Map.of(0, new Checker.ReplicaLogs(3, 10, Map.of(1, stored(10), 2, stored(10), 3, other)));
        List<Anomaly> anomalies = Checker.checkReplicas(replicas);
        assertThat(anomalies).extracting(Anomaly::type).containsExactly(Anomaly.Type.REPLICA_DIVERGED);
        assertThat(anomalies.get(0).count())
                .as("offsets 7 and 8 on nodes 1 and 2")
                .isEqualTo(4);
        assertThat(anomalies.get(0).detail()).contains("offset 8").contains("w2.0:0:0");
    }

    @Test
    void rangesAreCompact() {
        assertThat(Checker.ranges(List.of(1L, 2L, 3L, 7L, 9L, 10L))).isEqualTo("1-3, 7, 9-10");
    }
}
