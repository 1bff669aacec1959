/**
 * What every Strait daemon (mirror, lag monitor, canary, failover's {@code --json}) uses to speak to the outside:
 * {@link dev.strait.mirror.http.HttpEndpoint} (GET routes on the JDK's {@code com.sun.net.httpserver}, all served
 * by one daemon thread per endpoint so a slow scrape costs at most one core), {@link dev.strait.mirror.http.Json}
 * (every JSON document through Jackson's streaming generator, so names are escaped in one place) and
 * {@link dev.strait.mirror.http.PrometheusLabel}. Route handlers run on the endpoint's thread and must only read
 * thread-safe state. The only mirror package allowed Jackson; it imports no other mirror package, and
 * {@code mirror.metrics}, the lag monitor, the canary and the command line import it.
 */
package dev.strait.mirror.http;
