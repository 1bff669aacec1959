/**
 * The companion broker's metrics: what a node knows about its partitions, its controller and the requests it
 * serves, rendered as Prometheus text ({@code strait_broker_*}) on {@code strait.metrics.port}.
 *
 * <p>{@link dev.strait.broker.metrics.RequestMetrics} counts and times every request the listeners complete;
 * {@link dev.strait.broker.metrics.BrokerMetrics} reads the partition and controller gauges from the node's
 * metadata image when scraped, so a gauge is never older than the scrape;
 * {@link dev.strait.broker.metrics.PrometheusText} writes the text exposition format and
 * {@link dev.strait.broker.metrics.MetricsHttpServer} serves it. Names follow Kafka's meanings (the JMX names
 * are in each metric's HELP line); docs/operating.md lists them.
 */
package dev.strait.broker.metrics;
