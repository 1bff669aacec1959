package dev.strait.broker.metrics;

import dev.strait.broker.network.RequestObserver;
import dev.strait.time.Time;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Counts and times the requests every listener of a node completes, per Kafka API (Kafka's
 * RequestsPerSec and TotalTimeMs per request type), plus the bytes of requests read and responses sent (Kafka's
 * network-level byte rates). Latency is a Prometheus histogram, so quantiles can be aggregated across nodes.
 * Thread-safe: completions come from every handler thread and from delayed operations.
 */
public final class RequestMetrics implements RequestObserver {

    /**
     * Histogram bounds in seconds: from a metadata request (sub-millisecond) to a long-polling fetch (500 ms by
     * default) and an acks=all produce waiting out a slow follower (seconds).
     */
    static final double[] BOUNDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};

    private final Time time;
    private final Map<String, ApiStats> byApi = new ConcurrentHashMap<>();
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();

    public RequestMetrics(Time time) {
        this.time = time;
    }

    /** One API's count, latency histogram (per bucket, not yet cumulative) and latency sum. */
    private static final class ApiStats {
        final LongAdder count = new LongAdder();
        final LongAdder[] buckets = new LongAdder[BOUNDS.length];
        final DoubleAdder sumSeconds = new DoubleAdder();

        ApiStats() {
            for (int i = 0; i < buckets.length; i++) {
                buckets[i] = new LongAdder();
            }
        }

        void record(double seconds) {
            count.increment();
            sumSeconds.add(seconds);
            for (int i = 0; i < BOUNDS.length; i++) {
                if (seconds <= BOUNDS[i]) {
                    buckets[i].increment();
                    return;
                }
            }
            // above the last bound: only in +Inf, which is the count
        }
    }

    @Override
    public long nanoseconds() {
        return time.nanoseconds();
    }

    @Override
    public void onCompleted(@Nullable String api, long latencyNanos, int requestBytes, long responseBytes) {
        bytesIn.add(requestBytes);
        bytesOut.add(responseBytes);
        if (api != null) {
            byApi.computeIfAbsent(api, a -> new ApiStats()).record(Math.max(0, latencyNanos) / 1e9);
        }
    }

    /** Requests of {@code api} completed so far (for tests and logs). */
    public long requests(String api) {
        ApiStats stats = byApi.get(api);
        return stats == null ? 0 : stats.count.sum();
    }

    void writeTo(PrometheusText text) {
        Map<String, ApiStats> sorted = new TreeMap<>(byApi);
        text.family(
                "strait_broker_requests_total",
                "counter",
                "Requests completed, per Kafka API (Kafka's kafka.network:type=RequestMetrics,name=RequestsPerSec).");
        sorted.forEach((api, stats) -> text.sample("strait_broker_requests_total", stats.count.sum(), "api", api));
        text.family(
                "strait_broker_request_latency_seconds",
                "histogram",
                "Time from a request having been read to its response being handed to the network thread, per"
                        + " Kafka API; includes a delayed produce's or fetch's wait (Kafka's TotalTimeMs).");
        sorted.forEach((api, stats) -> {
            long cumulative = 0;
            long count = stats.count.sum();
            for (int i = 0; i < BOUNDS.length; i++) {
                cumulative += stats.buckets[i].sum();
                text.sample(
                        "strait_broker_request_latency_seconds_bucket",
                        Math.min(cumulative, count),
                        "api",
                        api,
                        "le",
                        PrometheusText.format(BOUNDS[i]));
            }
            text.sample("strait_broker_request_latency_seconds_bucket", count, "api", api, "le", "+Inf");
            text.sample("strait_broker_request_latency_seconds_sum", stats.sumSeconds.sum(), "api", api);
            text.sample("strait_broker_request_latency_seconds_count", count, "api", api);
        });
        text.single(
                "strait_broker_bytes_in_total",
                "counter",
                "Bytes of requests read from clients and other brokers, every API (frames without their size prefix).",
                bytesIn.sum());
        text.single(
                "strait_broker_bytes_out_total",
                "counter",
                "Bytes of responses sent to clients and other brokers, every API.",
                bytesOut.sum());
    }
}
