package dev.strait.cli.failover;

import dev.strait.cli.Cli;
import dev.strait.cli.Version;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.failover.Failback;
import dev.strait.mirror.failover.FailbackPlan;
import dev.strait.mirror.failover.FailoverConfig;
import dev.strait.mirror.http.Json;
import dev.strait.mirror.linked.LinkException;
import dev.strait.mirror.linked.MirrorSource;
import dev.strait.mirror.linked.MirrorTopicFailback;
import dev.strait.mirror.progress.Progress;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strait failback}: return to the source after a failover. */
@Command(
        name = "failback",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        description = {
            "Returns to the source after a failover: a reverse mirror copies back the records written on the target",
            "after the failover (never the copies that came from the source), then each group resumes on the source",
            "where it stopped on the target. Source records that never reached the target before the failover",
            "(divergence) are kept on the source, before the records copied back, and named. Stop the applications on",
            "the target first. Same --config as failover; both clusters must be reachable.",
            "",
            "With --mirror-topics instead, for mirror topics promoted by strait failover --mirror-topics: the topics they",
            "copied on the source (a Strait companion cluster) become mirror topics of them again, at the same offsets.",
            "Per partition it finds where the two copies part; what the source holds past that point is saved into a",
            "topic of its own (<topic>.diverged-<time>) and only then cut, and copying starts from the target.",
            "",
            "Exit codes: 0 done, 1 partial (groups not moved are named) or a step failed, 2 bad input."
        })
public final class FailbackCommand implements Callable<Integer> {
    @SuppressWarnings("NullAway.Init") // picocli injects the spec when it builds the command line
    @Spec
    CommandSpec spec;

    @SuppressWarnings("NullAway.Init") // picocli sets this required option before call()
    @Option(
            names = "--config",
            required = true,
            paramLabel = "FILE",
            description =
                    "The failover config file (source./target. client settings, topic.prefix / topic.rename, sync.topic).")
    Path config;

    @Option(names = "--groups", paramLabel = "REGEX", description = "Consumer groups to move back.")
    @Nullable
    String groups;

    @Option(
            names = "--mirror-topics",
            paramLabel = "REGEX",
            description = "Fail back the promoted mirror topics matching REGEX on the target instead of moving groups:"
                    + " the dry run shows per partition where the copies part and what would be saved; --execute"
                    + " does it and waits until the copies catch up (--timeout.ms).")
    @Nullable
    String mirrorTopics;

    @Option(
            names = "--mirror-link",
            paramLabel = "NAME",
            description = "With --mirror-topics: the link on the source's brokers (strait.mirror.link.NAME.*) that "
                    + "reaches the target. Default: the target's bootstrap.servers from --config, over PLAINTEXT.")
    @Nullable
    String mirrorLink;

    @Option(names = "--groups.exclude", paramLabel = "REGEX", description = "Groups matching --groups to leave out.")
    @Nullable
    String groupsExclude;

    @Option(names = "--dry-run", description = "Print what would be done (the default).")
    boolean dryRun;

    @Option(
            names = "--execute",
            description = "Copy back, move the groups on the source, clear the failover points once every group "
                    + "moved. Run again, it copies only what is not on the source yet.")
    boolean execute;

    @Option(
            names = "--force",
            description = "With --execute: go on although groups have members (on the target they "
                    + "keep consuming; on the source they are removed from the group first).")
    boolean force;

    @Option(
            names = "--timeout.ms",
            paramLabel = "MS",
            defaultValue = "600000",
            description = "How long the copy back may take (default: ${DEFAULT-VALUE}).")
    long timeoutMs;

    @Option(names = "--json", description = "Print one JSON document instead of the tables.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        if (dryRun && execute) {
            throw new ConfigException("--dry-run and --execute exclude each other");
        }
        if (force && !execute) {
            throw new ConfigException("--force only applies with --execute");
        }
        if (timeoutMs < 1000) {
            throw new ConfigException("--timeout.ms must be at least 1000, not " + timeoutMs);
        }
        if (MirrorTopicsOption.chosen(groups, mirrorTopics, force, groupsExclude, "fail back mirror topics")) {
            return failBackMirrorTopics();
        }
        if (mirrorLink != null) {
            throw new ConfigException("--mirror-link applies to --mirror-topics only");
        }
        // MirrorTopicsOption.chosen refused the absence of both --groups and --mirror-topics.
        GroupFilter filter = GroupFilter.of(
                Objects.requireNonNull(groups, "--groups"), groupsExclude, "--groups", "--groups.exclude");
        FailoverConfig cfg = FailoverConfig.load(config);
        PrintWriter out = spec.commandLine().getOut();
        try (Failback failback = new Failback(cfg, Time.SYSTEM)) {
            FailbackPlan plan = failback.plan(filter);
            if (execute) {
                // On stderr, and only on a terminal without --json: stdout keeps the result alone.
                Progress copy = Progress.onStderr("failback: copying back", "records", json, Time.SYSTEM);
                plan = failback.execute(plan, filter, force, Duration.ofMillis(timeoutMs), copy);
            }
            out.println(json ? json(plan, execute) : text(plan, execute));
            out.flush();
            boolean partial = execute
                    && plan.groups().stream()
                            .anyMatch(g -> g.outcome() != null
                                    && (g.outcome().startsWith("refused")
                                            || g.outcome().startsWith("failed")));
            return partial ? Cli.FAILED : Cli.OK;
        }
    }

    private Integer failBackMirrorTopics() {
        Pattern pattern = MirrorTopicsOption.pattern(Objects.requireNonNull(mirrorTopics, "--mirror-topics"));
        FailoverConfig cfg = FailoverConfig.load(config);
        MirrorSource reach = reachTarget(cfg);
        PrintWriter out = spec.commandLine().getOut();
        try (Admin source = Admin.create(cfg.source());
                Admin target = Admin.create(cfg.target())) {
            List<MirrorTopicFailback.TopicResult> results = new MirrorTopicFailback(
                            source,
                            cfg.source(),
                            target,
                            cfg.target(),
                            reach,
                            Time.SYSTEM,
                            Duration.ofMillis(timeoutMs))
                    .run(pattern, execute);
            if (json) {
                out.println(MirrorFailbackText.json(results, execute));
            } else {
                MirrorFailbackText.text(out, results, execute);
            }
            out.flush();
            boolean refused = results.stream()
                    .anyMatch(r -> r.outcome() == MirrorTopicFailback.Outcome.REFUSED
                            || r.outcome() == MirrorTopicFailback.Outcome.FAILED_BACK_CATCHING_UP);
            return refused ? Cli.FAILED : Cli.OK;
        } catch (LinkException e) {
            spec.commandLine().getErr().println("failback: " + e.getMessage());
            return Cli.FAILED;
        }
    }

    /** How the source's brokers reach the target: a link they define, or the target's servers over PLAINTEXT. */
    private MirrorSource reachTarget(FailoverConfig cfg) {
        if (mirrorLink != null) {
            if (!mirrorLink.matches("[A-Za-z0-9_-]+")) {
                throw new ConfigException("--mirror-link is a link name: letters, digits, '_' and '-'");
            }
            return MirrorSource.link(mirrorLink);
        }
        String protocol = cfg.target().getProperty("security.protocol", "PLAINTEXT");
        if (!protocol.equalsIgnoreCase("PLAINTEXT")) {
            throw new ConfigException("the target is reached over " + protocol + ", and the source's brokers reach"
                    + " bootstrap servers over PLAINTEXT only: define a link on them (strait.mirror.link.NAME.*) and"
                    + " give --mirror-link NAME");
        }
        return MirrorSource.servers(cfg.target().getProperty("bootstrap.servers", ""));
    }

    static String text(FailbackPlan plan, boolean execute) {
        StringBuilder b = new StringBuilder();
        b.append("strait failback: ")
                .append(
                        execute
                                ? "EXECUTE"
                                : "DRY RUN (nothing is written; --execute copies back and " + "moves the groups)")
                .append('\n');
        b.append("source: cluster ")
                .append(plan.sourceCluster())
                .append("; target: cluster ")
                .append(plan.targetCluster())
                .append('\n');
        plan.warnings().forEach(w -> b.append("warning: ").append(w).append('\n'));
        long back = 0;
        long divergent = 0;
        for (FailbackPlan.TopicBack t : plan.topics()) {
            b.append('\n')
                    .append("topic ")
                    .append(t.targetTopic())
                    .append(" -> ")
                    .append(t.sourceTopic())
                    .append(
                            t.failoverTimeMs() < 0
                                    ? " (failover point found from the records' provenance)"
                                    : " (failover point recorded " + Instant.ofEpochMilli(t.failoverTimeMs()) + ")")
                    .append('\n');
            b.append(String.format(
                    Locale.ROOT,
                    "  %-9s %14s %12s %20s %16s %12s  %s%n",
                    "partition",
                    "failover point",
                    "target end",
                    execute ? "copied back" : "to copy back",
                    "source frontier",
                    "source end",
                    "divergent (kept on the source)"));
            for (FailbackPlan.PartitionBack p : t.partitions()) {
                long toCopy = execute ? p.copied() : p.targetEnd() - p.failoverOffset();
                back += Math.max(0, toCopy);
                divergent += p.divergent();
                String copied = execute && p.copied() > 0
                        ? toCopy + " @" + p.copiedFrom() + ".." + (p.copiedTo() - 1)
                        : String.valueOf(toCopy);
                String div = p.divergent() == 0
                        ? "0"
                        : p.divergent() + " records at offsets " + p.sourceFrontier() + ".." + (p.sourceEnd() - 1)
                                + String.format(Locale.ROOT, " (oldest %.1f s)", p.divergentAgeSeconds());
                b.append(String.format(
                        Locale.ROOT,
                        "  %-9d %14d %12d %20s %16d %12d  %s%n",
                        p.partition(),
                        p.failoverOffset(),
                        p.targetEnd(),
                        copied,
                        p.sourceFrontier(),
                        p.sourceEnd(),
                        div));
            }
        }
        for (FailbackPlan.GroupBack g : plan.groups()) {
            b.append('\n')
                    .append("group ")
                    .append(g.group())
                    .append(": ")
                    .append(g.activeOnTarget())
                    .append(" members on the target, ")
                    .append(g.activeOnSource())
                    .append(" on the source")
                    .append(g.outcome() == null ? "" : " => " + g.outcome())
                    .append('\n');
            for (FailbackPlan.PartitionGroupBack p : g.partitions()) {
                b.append(String.format(
                        Locale.ROOT,
                        "  %-28s %12d  ->  %-28s %12s  %s%s%n",
                        p.target(),
                        p.targetOffset(),
                        p.source(),
                        p.sourceOffset() < 0 ? "(after copy)" : String.valueOf(p.sourceOffset()),
                        p.how(),
                        p.readAgain() > 0 ? " (reads " + p.readAgain() + " copies again)" : ""));
            }
        }
        b.append('\n')
                .append("summary: ")
                .append(plan.topics().size())
                .append(" topics, ")
                .append(back)
                .append(execute ? " records copied back" : " offsets to copy back")
                .append(", ")
                .append(divergent)
                .append(" divergent source records kept, ")
                .append(plan.groups().size())
                .append(" groups");
        return b.toString();
    }

    static String json(FailbackPlan plan, boolean execute) {
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringField("mode", execute ? "execute" : "dry-run");
            Json.string(g, "sourceCluster", plan.sourceCluster());
            Json.string(g, "targetCluster", plan.targetCluster());
            g.writeNumberField("timeMs", plan.timeMs());
            Json.strings(g, "warnings", plan.warnings());
            g.writeArrayFieldStart("topics");
            for (FailbackPlan.TopicBack t : plan.topics()) {
                g.writeStartObject();
                g.writeStringField("targetTopic", t.targetTopic());
                g.writeStringField("sourceTopic", t.sourceTopic());
                g.writeNumberField("failoverTimeMs", t.failoverTimeMs());
                g.writeArrayFieldStart("partitions");
                for (FailbackPlan.PartitionBack p : t.partitions()) {
                    g.writeStartObject();
                    g.writeNumberField("partition", p.partition());
                    g.writeNumberField("failoverOffset", p.failoverOffset());
                    g.writeNumberField("targetEnd", p.targetEnd());
                    g.writeNumberField("copied", p.copied());
                    g.writeNumberField("copiedFrom", p.copiedFrom());
                    g.writeNumberField("copiedTo", p.copiedTo());
                    g.writeNumberField("sourceFrontier", p.sourceFrontier());
                    g.writeNumberField("sourceEnd", p.sourceEnd());
                    g.writeNumberField("divergent", p.divergent());
                    // three decimals, as the document always had them
                    g.writeFieldName("divergentAgeSeconds");
                    g.writeNumber(String.format(Locale.ROOT, "%.3f", p.divergentAgeSeconds()));
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("groups");
            for (FailbackPlan.GroupBack gb : plan.groups()) {
                g.writeStartObject();
                g.writeStringField("group", gb.group());
                g.writeNumberField("activeOnTarget", gb.activeOnTarget());
                g.writeNumberField("activeOnSource", gb.activeOnSource());
                Json.string(g, "outcome", gb.outcome());
                g.writeArrayFieldStart("partitions");
                for (FailbackPlan.PartitionGroupBack p : gb.partitions()) {
                    g.writeStartObject();
                    g.writeStringField("targetTopic", p.target().topic());
                    g.writeNumberField("partition", p.target().partition());
                    g.writeStringField("sourceTopic", p.source().topic());
                    g.writeNumberField("targetOffset", p.targetOffset());
                    g.writeNumberField("sourceOffset", p.sourceOffset());
                    Json.string(g, "how", p.how());
                    g.writeNumberField("readAgain", p.readAgain());
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }
}
