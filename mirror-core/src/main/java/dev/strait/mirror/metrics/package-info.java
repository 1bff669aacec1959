/**
 * The mirror's observable state: {@link dev.strait.mirror.metrics.MirrorMetrics} (one dropwizard registry, updated
 * concurrently by the stream threads and the producer's I/O thread), {@link dev.strait.mirror.metrics.MetricsFormat}
 * (Prometheus text and JSON), {@link dev.strait.mirror.metrics.MetricsHttpServer} ({@code /metrics},
 * {@code /healthz} on an {@code http.HttpEndpoint} thread) and {@link dev.strait.mirror.metrics.ProgressLogger}
 * (its own {@code strait-progress} thread). {@link dev.strait.mirror.metrics.ClientMetricsBridge} reads the
 * embedded clients' metrics only when a gauge is sampled, so the hot path copies nothing. The command line
 * starts the endpoint and the progress logger; the engine (and failback's reverse mirror) only updates the
 * metrics. Imports {@code mirror.http} and Jackson's core generator.
 */
package dev.strait.mirror.metrics;
