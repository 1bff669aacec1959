package dev.strait.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * What happens during a demo run, second by second: a list of steps, each due at a second of the run, each
 * printing what it does. The default scenario kills the leader of a source partition halfway, shows the
 * failover, and brings the broker back; more steps (a failover drill, say) are added with {@link #then}.
 * Steps that are faults open a window in which the live lines name the fault instead of reading OK.
 *
 * <p>Not thread-safe: the demo's main thread runs it.
 */
final class DemoScenario {
    /** What a step can touch. */
    interface Context {
        void say(String line);

        /** Marks the live lines until {@link #faultCleared} as inside this fault. */
        void faultStarted(String description);

        void faultCleared();
    }

    /** One thing the scenario does at second {@code at} of the run. */
    interface Action {
        void run(Context ctx) throws Exception;
    }

    record Step(int at, String name, Action action) {}

    private final List<Step> steps = new ArrayList<>();

    /** Adds a step; steps due at the same second run in the order they were added. */
    DemoScenario then(int at, String name, Action action) {
        steps.add(new Step(at, name, action));
        steps.sort(Comparator.comparingInt(Step::at));
        return this;
    }

    List<Step> steps() {
        return List.copyOf(steps);
    }

    /** Runs every step due at second {@code t}. */
    void runDue(int t, Context ctx) throws Exception {
        for (Step s : steps) {
            if (s.at() == t) {
                s.action().run(ctx);
            }
        }
    }
}
