package dev.strait.mirror.linked;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.mirror.linked.LineageParting.EpochEnd;
import dev.strait.mirror.linked.LineageParting.EpochEnds;
import dev.strait.mirror.linked.SourceLineage.EpochStart;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineagePartingTest {

    /**
     * A cluster's own leader-epoch cache, answering as Kafka's LeaderEpochFileCache.endOffsetFor (and Strait's) does:
     * the largest epoch at or below the one asked and its end; an epoch below the first known one answers that
     * epoch with the first start offset.
     */
    private record EpochCache(List<EpochStart> entries, long logEnd) implements EpochEnds {
        @Override
        public EpochEnd endOf(int epoch) {
            if (entries.isEmpty()) {
                return EpochEnd.UNDEFINED;
            }
            if (epoch < entries.get(0).epoch()) {
                return new EpochEnd(epoch, entries.get(0).startOffset());
            }
            for (int i = entries.size() - 1; i >= 0; i--) {
                if (entries.get(i).epoch() <= epoch) {
                    long end = i + 1 < entries.size() ? entries.get(i + 1).startOffset() : logEnd;
                    return new EpochEnd(entries.get(i).epoch(), end);
                }
            }
            throw new AssertionError("unreachable");
        }
    }

    private static EpochStart at(int epoch, long offset) {
        return new EpochStart(epoch, offset);
    }

    private static SourceLineage lineage(long linkStart, EpochStart... epochs) {
        return new SourceLineage("id", linkStart, List.of(epochs));
    }

    @Test
    void theOldSourceWroteOnInTheSameEpochAfterThePromote() {
        // Given: the promoted side copied epoch 3 up to 120; the old source wrote on in epoch 3 to 150
        SourceLineage copied = lineage(0, at(1, 0), at(3, 40));
        EpochCache old = new EpochCache(List.of(at(1, 0), at(3, 40)), 150);

        // When
        long parted = LineageParting.partingPoint(copied, 120, old, 150);

        // Then
        assertThat(parted).isEqualTo(120);
    }

    @Test
    void anEpochBumpOnTheOldSourceAfterTheCopyStoppedPartsAtItsStart() {
        // Given: the old source had a leader change at 100 (epoch 4), after the copy had reached 100 in epoch 3
        SourceLineage copied = lineage(0, at(3, 0));
        EpochCache old = new EpochCache(List.of(at(3, 0), at(4, 100)), 180);

        // When: the copy was promoted at 100, or at 90 (its last stable offset)
        long atEnd = LineageParting.partingPoint(copied, 100, old, 180);
        long atStable = LineageParting.partingPoint(copied, 90, old, 180);

        // Then
        assertThat(atEnd).isEqualTo(100);
        assertThat(atStable).isEqualTo(90);
    }

    @Test
    void anUncleanElectionOnTheOldSourceLostPartOfACopiedEpoch() {
        // Given: the copy holds epoch 5 up to 200, but the old source's epoch 5 ends at 170 (an unclean leader took
        // over with epoch 6 at 170 and wrote other records)
        SourceLineage copied = lineage(0, at(2, 0), at(5, 100));
        EpochCache old = new EpochCache(List.of(at(2, 0), at(5, 100), at(6, 170)), 260);

        // When
        long parted = LineageParting.partingPoint(copied, 200, old, 260);

        // Then
        assertThat(parted).isEqualTo(170);
    }

    @Test
    void anEpochTheOldSourceNeverHeldIsSkippedTheKafkaWay() {
        // Given: the copy recorded epoch 7 at 300, but the old source's log (truncated since) holds 5 then 8: the
        // answer for 7 is epoch 5, which the copy holds too
        SourceLineage copied = lineage(0, at(5, 100), at(7, 300));
        EpochCache old = new EpochCache(List.of(at(5, 100), at(8, 250)), 400);

        // When
        long parted = LineageParting.partingPoint(copied, 350, old, 400);

        // Then
        assertThat(parted).isEqualTo(250);
    }

    @Test
    void aLeaderChangeInTheCopyingClusterWhileMirroringLeavesTheLineageConsistent() {
        // Given: leader A of the copying cluster copied epoch 2 from 0 and epoch 3 from 80 up to 95, unreplicated past
        // 70; leader B took over with its log ending at 70 and copies again from there, where epoch 2 still runs
        SourceLineage onA =
                SourceLineage.startingAt("id", 0).copied(2, 0).copied(2, 40).copied(3, 80);
        SourceLineage onB = onA.copied(2, 70).copied(3, 80).copied(3, 90);
        EpochCache old = new EpochCache(List.of(at(2, 0), at(3, 80)), 130);

        // When
        long parted = LineageParting.partingPoint(onB, 110, old, 130);

        // Then
        assertThat(onB.epochs()).containsExactly(at(2, 0), at(3, 80));
        assertThat(SourceLineage.startingAt("id", 0)
                        .copied(2, 0)
                        .copied(3, 80)
                        .copied(2, 70)
                        .epochs())
                .containsExactly(at(2, 0));
        assertThat(parted).isEqualTo(110);
    }

    @Test
    void epochBumpsOnBothSidesDuringMirroringAndRangesCutAwayAtThePromote() {
        // Given: source epochs 1, 2 (from 50), 4 (from 90); the copy was promoted at its stable offset 90, so the
        // range of epoch 4 it had copied is empty after the cut; the old source wrote on in 4 and 5
        SourceLineage copied = lineage(0, at(1, 0), at(2, 50), at(4, 90));
        EpochCache old = new EpochCache(List.of(at(1, 0), at(2, 50), at(4, 90), at(5, 140)), 200);

        // When
        long parted = LineageParting.partingPoint(copied, 90, old, 200);

        // Then
        assertThat(parted).isEqualTo(90);
    }

    @Test
    void nothingCopiedOrNothingInCommonPartsAtTheLinkStart() {
        // Given: a link that began at 500 (a failback cut there) and copied nothing, or only epochs the old source
        // no longer holds
        SourceLineage none = SourceLineage.startingAt("id", 500);
        SourceLineage foreign = lineage(500, at(9, 500));
        EpochCache old = new EpochCache(List.of(at(11, 480)), 700);
        EpochCache empty = new EpochCache(List.of(), 0);

        // When / Then
        assertThat(LineageParting.partingPoint(none, 500, old, 700)).isEqualTo(500);
        EpochEnds nothingOlder = epoch -> epoch < 11 ? EpochEnd.UNDEFINED : old.endOf(epoch);
        assertThat(LineageParting.partingPoint(foreign, 650, nothingOlder, 700)).isEqualTo(500);
        assertThat(LineageParting.partingPoint(foreign, 650, empty, 0)).isEqualTo(0);
    }

    @Test
    void severalCyclesKeepTheAgreedPrefixBelowTheLinkStart() {
        // Cycle 1: B copies A (A's epochs 1, 2), promoted at 100; A wrote on to 130 in epoch 2.
        SourceLineage bCopiesA =
                SourceLineage.startingAt("a-topic", 0).copied(1, 0).copied(2, 60);
        EpochCache a1 = new EpochCache(List.of(at(1, 0), at(2, 60)), 130);
        long cut1 = LineageParting.partingPoint(bCopiesA, 100, a1, 130);
        assertThat(cut1).isEqualTo(100);

        // Failback 1 cut A at 100 (A's epoch 3 from there); A copies B (B's epochs 7 from 100, 8 from 160),
        // promoted at 200; B wrote on in epoch 8 to 240 and had a leader change to 9 at 240.
        SourceLineage aCopiesB =
                SourceLineage.startingAt("b-topic", cut1).copied(7, 100).copied(8, 160);
        EpochCache b = new EpochCache(List.of(at(4, 0), at(7, 100), at(8, 160), at(9, 240)), 260);
        long cut2 = LineageParting.partingPoint(aCopiesB, 200, b, 260);
        assertThat(cut2).isEqualTo(200);

        // Failback 2 cut B at 200; B copies A again from 200 (A's epochs 3.. in A's own numbering: A took writes in
        // epoch 5 after its promote at 200, and B copied them up to 230 before being promoted at 230). A's log:
        // epoch 3 from 100 (its copy of B, rewritten), 5 from 200.
        SourceLineage bCopiesAAgain = SourceLineage.startingAt("a-topic", cut2).copied(5, 200);
        EpochCache a2 = new EpochCache(List.of(at(1, 0), at(2, 60), at(3, 100), at(5, 200)), 260);
        long cut3 = LineageParting.partingPoint(bCopiesAAgain, 230, a2, 260);
        assertThat(cut3).isEqualTo(230);

        // And if B copied nothing of A before its promote, the parting is the link start, never below.
        assertThat(LineageParting.partingPoint(SourceLineage.startingAt("a-topic", cut2), 200, a2, 260))
                .isEqualTo(200);
    }

    @Test
    void theCaseBisectionGetsWrongIsFoundFromLineage() {
        // Given: both logs hold 16 records; they part at 4, but the records at 8 happen to be identical (the same
        // key, value, timestamp and headers written on each side), and bisection probes 8 first
        List<String> old = new ArrayList<>();
        List<String> promoted = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            old.add(i < 4 || i == 8 ? "r" + i : "old-" + i);
            promoted.add(i < 4 || i == 8 ? "r" + i : "new-" + i);
        }
        SourceLineage copied = lineage(0, at(1, 0));
        EpochCache oldEpochs = new EpochCache(List.of(at(1, 0), at(2, 4)), 16);

        // When
        long bisected =
                DivergencePoint.bisect(0, 16, offset -> old.get((int) offset).equals(promoted.get((int) offset)));
        long fromLineage = LineageParting.partingPoint(copied, 4, oldEpochs, 16);

        // Then: bisection skips the four records that differ below the identical one; lineage does not
        assertThat(bisected).isEqualTo(9);
        assertThat(fromLineage).isEqualTo(4);
    }

    @Test
    void aLineageRoundTripsThroughItsConfigValueAndRefusesDisorder() {
        SourceLineage lineage = lineage(100, at(3, 100), at(7, 250));
        assertThat(SourceLineage.decode(lineage.encode())).contains(lineage);
        assertThat(SourceLineage.decode("x:5")).contains(SourceLineage.startingAt("x", 5));
        for (String bad : new String[] {"", "x", ":5", "x:y", "x:5:3", "x:5:3@4", "x:5:7@10:3@20", "x:5:a@b"}) {
            assertThat(SourceLineage.decode(bad)).as(bad).isEmpty();
        }
        assertThatThrownBy(() -> lineage.copied(5, 300)).isInstanceOf(IllegalArgumentException.class);
    }
}
