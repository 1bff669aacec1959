/**
 * The lag monitor's endpoint: {@link dev.strait.lag.http.StatusServer} serves {@code /status}, {@code /metrics} and
 * {@code /healthz}, and the status page ({@code /}, with {@code /history} and {@code /peers}, the two documents only
 * the page reads), on a {@code mirror.http.HttpEndpoint} ({@code strait-lag-http}, one daemon thread), reading only
 * the immutable values the loop thread last published (verdict, audit summary, lag history, neighbours);
 * {@link dev.strait.lag.http.StatusFormat} renders the verdict as JSON and Prometheus text, the one format shared by
 * the endpoint, the webhook and the command line's {@code --json}; {@link dev.strait.lag.http.StatusPage} holds the
 * page (a resource, {@code status-page.html}, self-contained) and writes its two documents. Imports
 * {@code lag.status}, {@code lag.sample}, {@code lag.audit}, {@code lag.peer} and {@code mirror.http}; the alerter
 * and the command line import it.
 */
package dev.strait.lag.http;
