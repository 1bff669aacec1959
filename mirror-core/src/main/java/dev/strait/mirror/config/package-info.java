/**
 * The mirror's validated inputs, so that a setting that cannot work fails once, at start, with a one-line
 * {@link dev.strait.settings.ConfigException} naming it, rather than deep in a running stream.
 * {@link dev.strait.mirror.config.MirrorConfig} (everything an engine runs with),
 * {@link dev.strait.mirror.config.ClientConfigs} (the user's client properties made safe for mirroring),
 * {@link dev.strait.mirror.config.TopicRenamer} and {@link dev.strait.mirror.config.PropertyValues} (the client
 * settings of the lag monitor's and canary's files, whose own settings are tables of the settings module's
 * {@code Setting}s). The mirror's settings come from picocli flags, which declare them. Settings are immutable and helpers stateless: built on the thread that
 * parses the command line, then read from any thread. Imports kafka-clients' public config names and
 * {@code mirror.handler} (a setting holds the handler); the other mirror packages, the lag monitor, the canary,
 * the command line and the benchmarks import it.
 */
package dev.strait.mirror.config;
