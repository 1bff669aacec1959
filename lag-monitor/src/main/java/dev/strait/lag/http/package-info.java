/**
 * The lag monitor's endpoint: {@link dev.strait.lag.http.StatusServer} serves {@code /status}, {@code /metrics} and
 * {@code /healthz} on a {@code mirror.http.HttpEndpoint} ({@code strait-lag-http}, one daemon thread), reading only
 * the immutable verdict and audit summary the loop thread last published; {@link dev.strait.lag.http.StatusFormat}
 * renders them as JSON and Prometheus text, the one format shared by the endpoint, the webhook and the command
 * line's {@code --json}. Imports {@code lag.status}, {@code lag.sample}, {@code lag.audit} and {@code mirror.http};
 * the alerter and the command line import it.
 */
package dev.strait.lag.http;
