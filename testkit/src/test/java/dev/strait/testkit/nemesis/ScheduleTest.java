package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ScheduleTest {
    private static final ScheduleSpec SPEC =
            new ScheduleSpec(120_000, 6_000, 3, 4, 500, EnumSet.allOf(FaultKind.class));

    @Test
    void theScheduleIsAPureFunctionOfTheSeed() {
        for (long seed = 0; seed < 50; seed++) {
            Schedule a = Schedule.generate(seed, SPEC);
            Schedule b = Schedule.generate(
                    seed, new ScheduleSpec(120_000, 6_000, 3, 4, 500, EnumSet.allOf(FaultKind.class)));
            assertThat(b).isEqualTo(a);
            assertThat(b.describe()).isEqualTo(a.describe());
        }
    }

    @Test
    void differentSeedsGiveDifferentSchedules() {
        Set<List<Fault>> seen = new HashSet<>();
        for (long seed = 0; seed < 50; seed++) {
            seen.add(Schedule.generate(seed, SPEC).faults());
        }
        assertThat(seen).hasSize(50);
    }

    @Test
    void faultsFitTheFaultPhaseOneAtATime() {
        for (long seed = 0; seed < 200; seed++) {
            Schedule schedule = Schedule.generate(seed, SPEC);
            assertThat(schedule.faults()).isNotEmpty();
            long previousEnd = 0;
            for (Fault fault : schedule.faults()) {
                assertThat(fault.atMs()).isGreaterThanOrEqualTo(Math.max(Schedule.WARM_UP_MS, previousEnd));
                assertThat(fault.atMs() + fault.budgetMs()).isLessThanOrEqualTo(SPEC.faultPhaseMs());
                assertThat(fault.partition()).isBetween(0, SPEC.partitions() - 1);
                previousEnd = fault.atMs() + fault.budgetMs();
            }
            assertThat(schedule.faults().stream().filter(f -> f.kind() == FaultKind.KILL_CONTROLLER_DURING_CREATE))
                    .hasSizeLessThanOrEqualTo(1);
            assertThat(schedule.faults().stream().filter(f -> f.kind() == FaultKind.ROLLING_RESTART))
                    .hasSizeLessThanOrEqualTo(1);
        }
    }

    @Test
    void pausesAreDrawnShorterAndLongerThanTheSessionTimeout() {
        Set<Boolean> lengths = new HashSet<>();
        for (long seed = 0; seed < 200; seed++) {
            for (Fault fault : Schedule.generate(seed, SPEC).faults()) {
                if (fault.kind().family() == FaultKind.Family.PAUSE) {
                    lengths.add(fault.longPause());
                    if (fault.longPause()) {
                        assertThat(fault.durationMs()).isGreaterThan(SPEC.sessionTimeoutMs());
                    } else {
                        assertThat(fault.durationMs()).isLessThan(SPEC.sessionTimeoutMs());
                    }
                }
                if (fault.kind() == FaultKind.ISOLATE_LEADER) {
                    assertThat(fault.durationMs())
                            .as("long enough for a new leader")
                            .isGreaterThan(SPEC.sessionTimeoutMs());
                }
            }
        }
        assertThat(lengths).containsExactlyInAnyOrder(true, false);
    }

    @Test
    void everyKindIsDrawnAndOnlySelectedKinds() {
        Set<FaultKind> drawn = EnumSet.noneOf(FaultKind.class);
        for (long seed = 0; seed < 200; seed++) {
            Schedule.generate(seed, SPEC).faults().forEach(f -> drawn.add(f.kind()));
        }
        assertThat(drawn).isEqualTo(EnumSet.allOf(FaultKind.class));

        ScheduleSpec pausesOnly = new ScheduleSpec(60_000, 6_000, 3, 4, 500, FaultKind.parseList("pause"));
        for (long seed = 0; seed < 50; seed++) {
            assertThat(Schedule.generate(seed, pausesOnly).faults())
                    .allMatch(f -> f.kind().family() == FaultKind.Family.PAUSE);
        }
    }

    @Test
    void flapsHealWhatTheyCutAndNameRealLinks() {
        for (long seed = 0; seed < 100; seed++) {
            for (Fault fault : Schedule.generate(seed, SPEC).faults()) {
                if (fault.kind() != FaultKind.FLAP) {
                    continue;
                }
                Set<String> cut = new HashSet<>();
                for (Fault.LinkToggle t : fault.toggles()) {
                    assertThat(t.a()).isLessThan(t.b());
                    assertThat(t.b()).isLessThanOrEqualTo(3);
                    assertThat(t.atMs()).isLessThan(fault.durationMs());
                    String link = t.a() + "-" + t.b();
                    assertThat(cut.contains(link))
                            .as("toggle flips the link's state")
                            .isEqualTo(!t.cut());
                    if (t.cut()) {
                        cut.add(link);
                    } else {
                        cut.remove(link);
                    }
                }
            }
        }
    }

    @Test
    void faultListsParseFamiliesAndNames() {
        assertThat(FaultKind.parseList("kill"))
                .containsExactlyInAnyOrder(
                        FaultKind.KILL_LEADER_AND_CONTROLLER,
                        FaultKind.KILL_CONTROLLER_DURING_CREATE,
                        FaultKind.ROLLING_RESTART);
        assertThat(FaultKind.parseList("isolate-leader,pause-controller"))
                .containsExactlyInAnyOrder(FaultKind.ISOLATE_LEADER, FaultKind.PAUSE_CONTROLLER);
        // A power cut of every node needs the fsync mode, so neither "all" nor "power" selects it; its name does.
        assertThat(FaultKind.parseList("all")).isEqualTo(EnumSet.complementOf(EnumSet.of(FaultKind.POWER_LOSS_ALL)));
        assertThat(FaultKind.parseList("power")).doesNotContain(FaultKind.POWER_LOSS_ALL);
        assertThat(FaultKind.parseList("power-loss-all")).containsExactly(FaultKind.POWER_LOSS_ALL);
        assertThatThrownBy(() -> FaultKind.parseList("earthquake"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown fault 'earthquake'");
    }

    @Test
    void theDescriptionCarriesTheSeedAndTheFlagsThatReplayIt() {
        Schedule schedule = Schedule.generate(42, SPEC);
        assertThat(schedule.describe())
                .startsWith("seed 42: ")
                .contains("--fault-phase-s 120")
                .contains("--session-timeout-ms 6000");
        assertThat(schedule.describe().lines().count())
                .isEqualTo(1 + schedule.faults().size());
    }
}
