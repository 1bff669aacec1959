package dev.strait.lag.peer;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads the canary's and the mirror's {@code /metrics} for the status page, each with at most {@code timeoutMs}, and
 * keeps the canary's latency for the last {@code spanMs} (at most {@code capacity} points).
 *
 * <p>Not thread-safe: the monitor's loop thread calls {@link #poll(long)}; {@link #state()} is immutable.
 */
public final class PeerWatch {
    private static final String[] CANARY_STATES = {"OK", "LATE", "LOST"}; // the canary's CanaryState, by ordinal
    private static final String SYNC = "strait_mirror_sync_group_offsets_";

    private final @Nullable URI canaryUrl;
    private final @Nullable URI mirrorUrl;
    private final Duration timeout;
    private final long spanMs;
    private final int capacity;
    private final HttpClient http;
    private final Deque<PeerState.LatencyPoint> latency = new ArrayDeque<>();
    private PeerState.Canary canary = PeerState.NONE.canary();
    private PeerState.GroupSync sync = PeerState.NONE.groupSync();

    public PeerWatch(@Nullable URI canaryUrl, @Nullable URI mirrorUrl, long timeoutMs, long spanMs, int capacity) {
        this.canaryUrl = canaryUrl;
        this.mirrorUrl = mirrorUrl;
        this.timeout = Duration.ofMillis(timeoutMs);
        this.spanMs = spanMs;
        this.capacity = capacity;
        this.http = HttpClient.newBuilder().connectTimeout(timeout).build();
        if (canaryUrl != null) {
            canary = new PeerState.Canary(
                    new PeerState.Reach(canaryUrl.toString(), -1, -1, null), "", "UNKNOWN", -1, -1, -1, List.of());
        }
        if (mirrorUrl != null) {
            sync = new PeerState.GroupSync(
                    new PeerState.Reach(mirrorUrl.toString(), -1, -1, null), false, false, 0, -1, -1, -1, 0, 0);
        }
    }

    /** Reads both neighbours once; a failure is recorded (since when, and why), never thrown. */
    public void poll(long nowMs) {
        if (canaryUrl != null) {
            try {
                canary = canary(PromText.parse(fetch(canaryUrl)), nowMs);
            } catch (Exception e) {
                canary = new PeerState.Canary(
                        failed(canary.reach(), nowMs, e),
                        canary.canaryId(),
                        canary.state(),
                        canary.p50Ms(),
                        canary.p99Ms(),
                        canary.lostTotal(),
                        trimmed(nowMs));
            }
        }
        if (mirrorUrl != null) {
            try {
                sync = sync(PromText.parse(fetch(mirrorUrl)), nowMs);
            } catch (Exception e) {
                PeerState.GroupSync s = sync;
                sync = new PeerState.GroupSync(
                        failed(s.reach(), nowMs, e),
                        s.present(),
                        s.failing(),
                        s.consecutiveFailures(),
                        s.lastSuccessMs(),
                        s.groups(),
                        s.partitions(),
                        s.rounds(),
                        s.failures());
            }
        }
    }

    public PeerState state() {
        return new PeerState(canary, sync);
    }

    private String fetch(URI url) throws Exception {
        HttpResponse<String> r =
                http.send(HttpRequest.newBuilder(url).timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("HTTP " + r.statusCode());
        }
        return r.body();
    }

    private PeerState.Canary canary(PromText m, long nowMs) {
        PromText.Sample state = m.first("strait_canary_state", "");
        if (state == null) {
            throw new IllegalStateException("no strait_canary_state: is this the canary's /metrics?");
        }
        int ordinal = (int) state.value();
        String id = state.label("canary");
        double p50 = m.value("strait_canary_latency_seconds", "quantile=\"0.5\"", -0.001) * 1000;
        double p99 = m.value("strait_canary_latency_seconds", "quantile=\"0.99\"", -0.001) * 1000;
        if (m.value("strait_canary_latency_seconds_count", "", 0) > 0) {
            latency.addLast(new PeerState.LatencyPoint(nowMs, p50, p99));
        }
        return new PeerState.Canary(
                new PeerState.Reach(String.valueOf(canaryUrl), nowMs, -1, null),
                id == null ? "" : id,
                ordinal >= 0 && ordinal < CANARY_STATES.length ? CANARY_STATES[ordinal] : "UNKNOWN",
                p50,
                p99,
                (long) m.value("strait_canary_probes_lost_total", "", -1),
                trimmed(nowMs));
    }

    private List<PeerState.LatencyPoint> trimmed(long nowMs) {
        while (!latency.isEmpty()
                && (latency.size() > capacity || latency.peekFirst().timestampMs() < nowMs - spanMs)) {
            latency.removeFirst();
        }
        return new ArrayList<>(latency);
    }

    private PeerState.GroupSync sync(PromText m, long nowMs) {
        PeerState.Reach ok = new PeerState.Reach(String.valueOf(mirrorUrl), nowMs, -1, null);
        if (m.first(SYNC + "failing", "") == null) {
            return new PeerState.GroupSync(ok, false, false, 0, -1, -1, -1, 0, 0);
        }
        return new PeerState.GroupSync(
                ok,
                true,
                m.value(SYNC + "failing", "", 0) > 0,
                (long) m.value(SYNC + "consecutive_failures", "", 0),
                (long) m.value(SYNC + "last_success_ms", "", -1),
                (long) m.value(SYNC + "groups", "", -1),
                (long) m.value(SYNC + "partitions", "", -1),
                (long) m.value(SYNC + "rounds_total", "", 0),
                (long) m.value(SYNC + "failures_total", "", 0));
    }

    private static PeerState.Reach failed(PeerState.Reach before, long nowMs, Exception e) {
        Throwable t = e;
        while (t.getCause() != null
                && (t.getMessage() == null || t instanceof java.util.concurrent.ExecutionException)) {
            t = t.getCause();
        }
        String why = t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage());
        return new PeerState.Reach(
                before.url(),
                before.lastReadMs(),
                before.unreachableSinceMs() >= 0 ? before.unreachableSinceMs() : nowMs,
                why);
    }
}
