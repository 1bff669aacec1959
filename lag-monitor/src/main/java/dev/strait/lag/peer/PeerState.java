package dev.strait.lag.peer;

import java.util.List;
import org.jspecify.annotations.Nullable;

/** What the status page shows of the lag monitor's neighbours, as last read. Immutable. */
public record PeerState(Canary canary, GroupSync groupSync) {
    public static final PeerState NONE = new PeerState(
            new Canary(Reach.NOT_CONFIGURED, "", "UNKNOWN", -1, -1, -1, List.of()),
            new GroupSync(Reach.NOT_CONFIGURED, false, false, 0, -1, -1, -1, 0, 0));

    /**
     * Whether a neighbour could be read: {@code url} null when it is not configured; {@code unreachableSinceMs} the
     * first failed read of the current run of failures (-1 while reads succeed), {@code error} the last failure.
     */
    public record Reach(
            @Nullable String url,
            long lastReadMs,
            long unreachableSinceMs,
            @Nullable String error) {
        public static final Reach NOT_CONFIGURED = new Reach(null, -1, -1, null);

        public boolean configured() {
            return url != null;
        }
    }

    /** The canary's end-to-end latency at one read: median and 99th percentile of its recent probes. */
    public record LatencyPoint(long timestampMs, double p50Ms, double p99Ms) {}

    /** The canary: its state (OK, LATE, LOST; UNKNOWN before a read), latency now and over the last hour. */
    public record Canary(
            Reach reach,
            String canaryId,
            String state,
            double p50Ms,
            double p99Ms,
            long lostTotal,
            List<LatencyPoint> latency) {
        public Canary {
            latency = List.copyOf(latency);
        }
    }

    /**
     * The mirror's group offset sync: {@code present} false when the mirror exports none (group sync off).
     * {@code lastSuccessMs} is the mirror's clock; -1 before its first successful round.
     */
    public record GroupSync(
            Reach reach,
            boolean present,
            boolean failing,
            long consecutiveFailures,
            long lastSuccessMs,
            long groups,
            long partitions,
            long rounds,
            long failures) {}
}
