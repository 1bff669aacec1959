package dev.strait.cli;

import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.jmx.JmxReporter;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicConfigFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.config.TruncationPolicy;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.handler.MessageHandlers;
import dev.strait.mirror.linked.LinkConfig;
import dev.strait.mirror.linked.LinkedMirror;
import dev.strait.mirror.metrics.MetricsHttpServer;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.metrics.ProgressLogger;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strait mirror} / {@code bin/mirror-maker}: mirror topics from a source cluster to a target cluster. */
@Command(
        name = "mirror",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        description = {
            "Mirrors topics from a source Kafka cluster to a target cluster without losing data.",
            "Like Kafka's MirrorMaker 1, with its flags; offsets are committed to the source only after the target",
            "acknowledged every record before them.",
            "",
            "With --offset.preserving and a Strait companion cluster as the target, the companion brokers copy the",
            "batches themselves at the source's offsets, and this process sets up the mirror topics, copies group",
            "offsets verbatim and reports the lag.",
            "",
            "Exit codes: 0 stopped cleanly, 1 failed while running (the log says why), 2 bad input."
        })
public final class MirrorCommand implements Callable<Integer> {
    private static final Logger LOGGER = LoggerFactory.getLogger(MirrorCommand.class);

    @SuppressWarnings("NullAway.Init") // picocli sets this required option before call()
    @Option(
            names = "--consumer.config",
            required = true,
            paramLabel = "FILE",
            description =
                    "Consumer properties of the source cluster: bootstrap.servers, group.id (shared by all streams), "
                            + "security settings. enable.auto.commit must not be true.")
    Path consumerConfig;

    @SuppressWarnings("NullAway.Init") // picocli sets this required option before call()
    @Option(
            names = "--producer.config",
            required = true,
            paramLabel = "FILE",
            description = "Producer properties of the target cluster: bootstrap.servers, security settings, tuning.")
    Path producerConfig;

    @SuppressWarnings("NullAway.Init") // picocli sets this required option before call()
    @Option(
            names = {"--whitelist", "--include"},
            required = true,
            paramLabel = "REGEX",
            description = "Regex of topics to mirror (a comma-separated list also works). Topics created later that "
                    + "match are picked up without a restart. Internal topics (__*) are never mirrored.")
    String include;

    @Option(
            names = "--offset.preserving",
            description = "Make the matching topics mirror topics on the target, which must be a Strait companion "
                    + "cluster: its brokers copy the source's batches unchanged at the source's offsets, so consumer "
                    + "offsets need no translation. This process creates them (the source's partitions and the settings "
                    + "--sync.topic.configs copies), grows them with their source, copies the offsets of --groups "
                    + "verbatim (groups without members on the target, up to what the target holds) and reports the exact "
                    + "lag; it copies no records itself, and a target topic that is not a mirror of its source is reported "
                    + "and left alone; --sync.topic.acls=true copies the consumers' ACLs of the topics as the ordinary "
                    + "mirror does. Refused against a target that is not a companion cluster, with a source whose "
                    + "security.protocol is not PLAINTEXT unless --offset.preserving.link names it, and with "
                    + "--message.handler, --topic.prefix, --topic.rename, --partition.mode=hash or "
                    + "--provenance.headers=false. The record options "
                    + "(--num.streams, --offset.commit.interval.ms, --abort.on.send.failure, --on.source.truncation, "
                    + "--offset.map, --sync.topic) do not apply.")
    boolean offsetPreserving;

    @Option(
            names = "--offset.preserving.source.bootstrap",
            paramLabel = "HOST:PORT,...",
            description =
                    "The source cluster's address as the companion brokers reach it, when it differs from "
                            + "bootstrap.servers in --consumer.config (e.g. from inside containers). Needs --offset.preserving.")
    @Nullable
    String offsetPreservingSourceBootstrap;

    @Option(
            names = "--offset.preserving.link",
            paramLabel = "NAME",
            description = "Name the source by a link the companion brokers define in their settings "
                    + "(strait.mirror.link.NAME.bootstrap.servers, security.protocol, ssl.*, sasl.*), for a secured "
                    + "source: the credentials stay in the brokers' configuration. Needs --offset.preserving.")
    @Nullable
    String offsetPreservingLink;

    @Option(
            names = "--num.streams",
            paramLabel = "N",
            defaultValue = "1",
            description = "Consumer threads, all in one group, sharing one producer (default: ${DEFAULT-VALUE}).")
    int numStreams;

    @Option(
            names = "--offset.commit.interval.ms",
            paramLabel = "MS",
            defaultValue = "60000",
            description = "How often each stream flushes the producer and commits acknowledged offsets "
                    + "(default: ${DEFAULT-VALUE}). Bounds the duplicates after a crash.")
    long offsetCommitIntervalMs;

    @Option(
            names = "--abort.on.send.failure",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description = "Stop (exit 1, nothing committed past the failed record) when a record cannot be written to "
                    + "the target; with false a record the target refuses on its own account (too large, invalid) or that the "
                    + "message handler fails on is counted, logged and skipped, while failures of the target or the path to it "
                    + "(delivery timeout, authorization, a fatal producer error) still stop the mirror (default: "
                    + "${DEFAULT-VALUE}).")
    boolean abortOnSendFailure;

    @Option(
            names = "--message.handler",
            paramLabel = "CLASS",
            description = "A dev.strait.mirror.handler.MessageHandler class on the class path that may transform, "
                    + "drop or multiply records.")
    @Nullable
    String messageHandler;

    @Option(
            names = "--message.handler.args",
            paramLabel = "ARGS",
            description = "A string passed to the message handler's configure method.")
    @Nullable
    String messageHandlerArgs;

    @SuppressWarnings("NullAway.Init") // picocli sets its default before call()
    @Option(
            names = "--on.source.truncation",
            paramLabel = "fail|skip-and-alert",
            defaultValue = "fail",
            converter = TruncationPolicyConverter.class,
            description = "When the source no longer holds the mirror's position: retention deleted records not yet "
                    + "mirrored, the topic was re-created, or the log diverged after an unclean leader election (records the "
                    + "mirror had read were lost and replaced). fail stops with an error naming the partition, the offsets "
                    + "and how many records; skip-and-alert logs and counts them (metrics source-records-lost, "
                    + "source-records-diverged) and continues: from the log start, a re-created topic's start, or the "
                    + "divergence point (default: fail).")
    TruncationPolicy onSourceTruncation;

    @SuppressWarnings("NullAway.Init") // picocli sets its default before call()
    @Option(
            names = "--partition.mode",
            paramLabel = "preserve|hash",
            defaultValue = "preserve",
            converter = PartitionModeConverter.class,
            description = "preserve: target partition = source partition (key hash where the target has fewer); "
                    + "hash: Kafka's key hash over the target's partitions (default: preserve).")
    PartitionMode partitionMode;

    @Option(
            names = "--topic.prefix",
            paramLabel = "PREFIX",
            description = "Prefix target topic names, e.g. 'nyc.' writes source topic orders to nyc.orders.")
    @Nullable
    String topicPrefix;

    @Option(
            names = "--topic.rename",
            paramLabel = "PATTERN=REPLACEMENT",
            description = "Rename target topics with a regex over the whole source name, e.g. 'prod\\.(.*)=dr.$1'.")
    @Nullable
    String topicRename;

    @Option(
            names = "--target.replication.factor",
            paramLabel = "N",
            defaultValue = "-1",
            description = "Replication factor of target topics the mirror creates; -1 uses the target's default "
                    + "(default: ${DEFAULT-VALUE}).")
    int targetReplicationFactor;

    @Option(
            names = "--provenance.headers",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description =
                    "Add the strait.src header (source cluster, topic, partition, offset) to every record, for exact "
                            + "lag, the audit and active-active loop prevention; with false the mirror removes any strait.src header "
                            + "its input carries (default: ${DEFAULT-VALUE}).")
    boolean provenanceHeaders;

    @Option(
            names = "--groups",
            paramLabel = "REGEX",
            description =
                    "Consumer groups whose committed offsets are translated to the same groups on the target, every "
                            + "--sync.group.offsets.interval.ms: exactly, from the provenance of the copies (the first copy at or after "
                            + "the committed source offset). Groups with members on the target are left alone; a target offset is never "
                            + "moved back. Default: no groups.")
    @Nullable
    String groups;

    @Option(
            names = "--groups.exclude",
            paramLabel = "REGEX",
            description = "Groups matching --groups but not to be synced.")
    @Nullable
    String groupsExclude;

    @Option(
            names = "--sync.group.offsets.interval.ms",
            paramLabel = "MS",
            defaultValue = "5000",
            description =
                    "How often group offsets are synced and the offset map is persisted (default: ${DEFAULT-VALUE}).")
    long syncGroupOffsetsIntervalMs;

    @Option(
            names = "--offset.map",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description = "Keep where each source record landed on the target and persist it in the sync topic, for "
                    + "--groups and for 'strait failover' with the source unreachable (default: ${DEFAULT-VALUE}).")
    boolean offsetMap;

    @SuppressWarnings("NullAway.Init") // picocli sets its default before call()
    @Option(
            names = "--sync.topic",
            paramLabel = "TOPIC",
            defaultValue = "__strait_sync",
            description = "Compacted topic on the target holding the offset map and the groups' last source offsets "
                    + "(default: ${DEFAULT-VALUE}).")
    String syncTopic;

    @Option(
            names = "--sync.topic.configs",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description =
                    "Copy source topic settings that change to the target topics, every --sync.topics.interval.ms, "
                            + "except the excluded ones (default: ${DEFAULT-VALUE}).")
    boolean syncTopicConfigs;

    @Option(
            names = "--config.properties.exclude",
            paramLabel = "REGEX[,REGEX]",
            description = "Topic settings never copied, on top of the built-in list: message.timestamp.type and "
                    + "message.timestamp.(difference|before|after).max.ms, leader/follower.replication.throttled.replicas, "
                    + "unclean.leader.election.enable, min.insync.replicas, remote.storage.enable, remote.log.*, local.retention.*, "
                    + "strait.mirror.* (a companion cluster's mirror-topic settings).")
    @Nullable
    String configPropertiesExclude;

    @Option(
            names = "--sync.topic.partitions",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description =
                    "Grow a target topic when its source gains partitions (never shrunk) (default: ${DEFAULT-VALUE}).")
    boolean syncTopicPartitions;

    @Option(
            names = "--sync.topic.acls",
            paramLabel = "true|false",
            defaultValue = "false",
            arity = "1",
            description =
                    "Copy the source's READ and DESCRIBE ACLs of mirrored topics to the target topics (WRITE never); "
                            + "needs an authorizer on both clusters (default: ${DEFAULT-VALUE}).")
    boolean syncTopicAcls;

    @Option(
            names = "--sync.topics.interval.ms",
            paramLabel = "MS",
            defaultValue = "60000",
            description = "How often topic settings, partition counts and ACLs are compared and synced "
                    + "(default: ${DEFAULT-VALUE}).")
    long syncTopicsIntervalMs;

    @Option(
            names = "--metrics.port",
            paramLabel = "PORT",
            defaultValue = "-1",
            description =
                    "Serve /metrics (Prometheus), /metrics.json and /healthz on this port; -1 turns it off, 0 picks "
                            + "a free port (default: ${DEFAULT-VALUE}).")
    int metricsPort;

    @SuppressWarnings("NullAway.Init") // picocli sets its default before call()
    @Option(
            names = "--metrics.host",
            paramLabel = "HOST",
            defaultValue = "127.0.0.1",
            description = "Address the metrics endpoint binds to; 0.0.0.0 in a container (default: ${DEFAULT-VALUE}).")
    String metricsHost;

    @Option(
            names = "--jmx",
            paramLabel = "true|false",
            defaultValue = "true",
            arity = "1",
            description =
                    "Publish the mirror's metrics over JMX in domain dev.strait.mirror (default: ${DEFAULT-VALUE}).")
    boolean jmx;

    @Option(
            names = "--progress.interval.ms",
            paramLabel = "MS",
            defaultValue = "30000",
            description = "How often to log a one-line progress report (default: ${DEFAULT-VALUE}).")
    long progressIntervalMs;

    @Override
    public Integer call() throws Exception {
        if (offsetPreserving) {
            return runLinked(linkSettings());
        }
        MirrorConfig settings = settings();
        MetricRegistry registry = new MetricRegistry();
        MirrorMetrics metrics = new MirrorMetrics(registry);
        MirrorEngine engine = new MirrorEngine(settings, metrics, Time.SYSTEM);
        return serve(
                new Running(
                        engine::requestStop,
                        engine::awaitTermination,
                        () -> new MetricsHttpServer.Health(engine.healthy(), engine.healthDetail()),
                        engine::failure),
                registry,
                metrics,
                "Stop requested: finishing in-flight records, committing, closing",
                // Graceful: wait for the final flush and commit; the main thread then logs the outcome.
                Duration.ofMinutes(5),
                () -> new ProgressLogger(metrics, settings.progressIntervalMs(), Time.SYSTEM),
                engine::start);
    }

    /**
     * The offset-preserving mirror: the companion cluster copies the records, this process keeps the mirror topics,
     * the groups and the lag in step until it is stopped.
     */
    private Integer runLinked(LinkConfig link) throws Exception {
        MetricRegistry registry = new MetricRegistry();
        MirrorMetrics metrics = new MirrorMetrics(registry);
        LinkedMirror mirror = new LinkedMirror(link, metrics, Time.SYSTEM);
        // Started before the shutdown hook exists: a refusal (the target is not a companion cluster) is then the one
        // line on stderr, and a stop while connecting has nothing to finish.
        try {
            mirror.start();
        } catch (dev.strait.mirror.linked.LinkException e) {
            throw new MirrorFailedException(e.getMessage(), e);
        }
        return serve(
                new Running(
                        mirror::requestStop,
                        mirror::awaitTermination,
                        () -> new MetricsHttpServer.Health(mirror.healthy(), mirror.healthDetail()),
                        mirror::failure),
                registry,
                metrics,
                "Stop requested: finishing the current round, closing",
                Duration.ofMinutes(2),
                () -> null,
                () -> {});
    }

    /**
     * What {@link #serve} runs until it stops: the record-copying engine or the offset-preserving mirror, by their
     * methods of the same names. The two share no type in mirror-core, and this command is the only place that
     * treats them alike.
     */
    private record Running(
            Runnable requestStop,
            Awaiter awaiter,
            Supplier<MetricsHttpServer.Health> health,
            Supplier<Throwable> failure) {
        boolean awaitTermination(Duration timeout) throws InterruptedException {
            return awaiter.awaitTermination(timeout);
        }
    }

    /** A mirror's {@code awaitTermination}, which may be interrupted. */
    private interface Awaiter {
        boolean awaitTermination(Duration timeout) throws InterruptedException;
    }

    /** Opens what runs beside the mirror ({@code beside}, e.g. the progress log; null for nothing). */
    private interface Beside {
        @Nullable
        AutoCloseable open();
    }

    /**
     * Serves a mirror until it stops: a shutdown hook that asks it to stop and waits up to {@code finishWithin},
     * JMX and the metrics endpoint while it runs; then reports its failure, if any.
     */
    private Integer serve(
            Running running,
            MetricRegistry registry,
            MirrorMetrics metrics,
            String stopMessage,
            Duration finishWithin,
            Beside beside,
            Runnable start)
            throws Exception {
        CountDownLatch exited = new CountDownLatch(1);
        Thread hook = new Thread(
                () -> {
                    LOGGER.info(stopMessage);
                    running.requestStop().run();
                    try {
                        running.awaitTermination(finishWithin);
                        exited.await(1, TimeUnit.MINUTES);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "strait-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try (JmxReporter jmxReporter = jmx
                        ? JmxReporter.forRegistry(registry)
                                .inDomain("dev.strait.mirror")
                                .build()
                        : null;
                AutoCloseable besides = beside.open()) {
            if (jmxReporter != null) {
                jmxReporter.start();
            }
            start.run();
            try (MetricsHttpServer http = metricsPort < 0
                    ? null
                    : new MetricsHttpServer(metricsHost, metricsPort, metrics, running.health())) {
                if (http != null) {
                    LOGGER.info(
                            "Metrics on http://{}:{}/metrics (also /metrics.json, /healthz)", metricsHost, http.port());
                }
                while (!running.awaitTermination(Duration.ofSeconds(1))) {
                    // wait for a stop request or a failure
                }
            }
        } finally {
            exited.countDown();
        }
        Throwable failure = running.failure().get();
        if (failure != null) {
            LOGGER.error("Mirror failed: {}", failure.getMessage());
            throw new MirrorFailedException(failure.getMessage(), failure);
        }
        return Cli.OK;
    }

    MirrorConfig settings() {
        if (!offsetPreserving && offsetPreservingSourceBootstrap != null) {
            throw new ConfigException("--offset.preserving.source.bootstrap needs --offset.preserving");
        }
        if (!offsetPreserving && offsetPreservingLink != null) {
            throw new ConfigException("--offset.preserving.link needs --offset.preserving");
        }
        MirrorConfig.Builder b = MirrorConfig.builder()
                .consumerConfig(ClientConfigs.load(consumerConfig, "--consumer.config"))
                .producerConfig(ClientConfigs.load(producerConfig, "--producer.config"))
                .include(include)
                .numStreams(numStreams)
                .offsetCommitIntervalMs(offsetCommitIntervalMs)
                .abortOnSendFailure(abortOnSendFailure)
                .onSourceTruncation(onSourceTruncation)
                .partitionMode(partitionMode)
                .renamer(TopicRenamer.of(topicPrefix, topicRename))
                .provenanceHeaders(provenanceHeaders)
                .targetReplicationFactor(targetReplicationFactor)
                .progressIntervalMs(progressIntervalMs)
                .sync(new SyncConfig(
                        groups == null ? null : GroupFilter.of(groups, groupsExclude, "--groups", "--groups.exclude"),
                        syncGroupOffsetsIntervalMs,
                        offsetMap,
                        syncTopic,
                        new TopicSyncConfig(
                                syncTopicConfigs,
                                syncTopicPartitions,
                                syncTopicAcls,
                                syncTopicsIntervalMs,
                                TopicConfigFilter.withExtra(configPropertiesExclude))));
        if (groups == null && groupsExclude != null) {
            throw new ConfigException("--groups.exclude needs --groups");
        }
        if (metricsPort < -1 || metricsPort > 65535) {
            throw new ConfigException(
                    "--metrics.port must be -1 (off), 0 (any free port) or a port number, not " + metricsPort);
        }
        if (messageHandler != null) {
            b.messageHandler(MessageHandlers.load(messageHandler, messageHandlerArgs, "--message.handler"));
        } else if (messageHandlerArgs != null) {
            throw new ConfigException("--message.handler.args needs --message.handler");
        }
        return b.build();
    }

    /** The offset-preserving form of the settings, or a {@link ConfigException} naming what cannot be combined. */
    LinkConfig linkSettings() {
        return LinkConfig.of(settings(), offsetPreservingSourceBootstrap, offsetPreservingLink);
    }

    /** {@code fail} or {@code skip-and-alert}. */
    static final class TruncationPolicyConverter implements CommandLine.ITypeConverter<TruncationPolicy> {
        @Override
        public TruncationPolicy convert(String value) {
            try {
                return TruncationPolicy.parse(value);
            } catch (ConfigException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** {@code preserve} or {@code hash}, in any case. */
    static final class PartitionModeConverter implements CommandLine.ITypeConverter<PartitionMode> {
        @Override
        public PartitionMode convert(String value) {
            try {
                return PartitionMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(
                        "--partition.mode must be 'preserve' or 'hash', not '" + value + "'");
            }
        }
    }

    /** The mirror ran and failed; exit code 1. */
    static final class MirrorFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MirrorFailedException(@Nullable String message, Throwable cause) {
            super(message, cause);
        }
    }
}
