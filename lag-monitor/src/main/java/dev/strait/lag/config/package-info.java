/**
 * The lag monitor's settings: {@link dev.strait.lag.config.LagMonitorConfig}, read from
 * {@code lag-monitor.properties} with the mirror's {@code PropertyValues}, so a bad value fails at start with the
 * same one-line {@code ConfigException} as the mirror's. It takes the mirror's {@code TopicRenamer} and message
 * handler as they are, because lag and audit must see target names and records exactly as the mirror made them.
 * Immutable once built (on the command's thread), but for the handler, which must itself be thread-safe. Imports
 * {@code mirror.config} and {@code mirror.handler}; the sampler, the command line and the benchmarks import it.
 */
package dev.strait.lag.config;
