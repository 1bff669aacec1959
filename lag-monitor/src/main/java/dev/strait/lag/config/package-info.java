/**
 * The lag monitor's settings: {@link dev.strait.lag.config.LagMonitorSettings} declares them (a table of
 * {@code dev.strait.settings.Setting}s, from which {@code docs/reference.md} documents them), and
 * {@link dev.strait.lag.config.LagMonitorConfig} reads {@code lag-monitor.properties} with it, so a bad value fails
 * at start with the one-line {@code ConfigException} every module throws. It takes the mirror's {@code TopicRenamer}
 * and message handler as they are, because lag and audit must see target names and records exactly as the mirror
 * made them. Immutable once built (on the command's thread), but for the handler, which must itself be thread-safe.
 * Imports {@code settings}, {@code mirror.config} and {@code mirror.handler}; the sampler, the command line and the
 * benchmarks import it.
 */
package dev.strait.lag.config;
