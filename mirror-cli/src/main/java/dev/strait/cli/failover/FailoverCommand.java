package dev.strait.cli.failover;

import dev.strait.cli.Cli;
import dev.strait.cli.Version;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.failover.FailoverConfig;
import dev.strait.mirror.failover.FailoverPlan;
import dev.strait.mirror.failover.FailoverPlanner;
import dev.strait.mirror.linked.LinkException;
import dev.strait.mirror.linked.MirrorTopicPromotion;
import dev.strait.mirror.progress.Progress;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code strait failover}: move consumer groups from the source to the target, exactly where they stopped. */
@Command(
        name = "failover",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        description = {
            "Moves consumer groups to the target cluster, each exactly where it stopped on the source: the offset of the",
            "first copy of the first record it had not consumed (from the provenance of the copies and the mirror's offset",
            "map). Works with the source unreachable, from what the target holds (the mirror's sync topic).",
            "A dry run (the default) prints, per group and partition, the source committed offset, the new target offset,",
            "records the group would read again (0 when exact) and records not on the target (the loss the failover",
            "accepts, with the age of the oldest). --execute writes the offsets; groups with members on the target are",
            "refused unless --force (which removes the members first).",
            "",
            "With --mirror-topics instead, it promotes the matching mirror topics of a Strait companion cluster",
            "(bin/mirror-maker --offset.preserving): each is paused, every partition is cut to its last stable offset",
            "(a transaction the copy left open, and the records after it, are moved aside into <topic>.diverged-<time>,",
            "never deleted), and it is promoted: it stops copying and takes producers. Consumer offsets need no moving",
            "(they are the source's).",
            "",
            "Exit codes: 0 done, 1 partial (the groups not moved, or mirror topics not promoted, are named) or a cluster",
            "failed, 2 bad input."
        })
public final class FailoverCommand implements Callable<Integer> {
    @SuppressWarnings("NullAway.Init") // picocli injects the spec when it builds the command line
    @Spec
    CommandSpec spec;

    @SuppressWarnings("NullAway.Init") // picocli sets this required option before call()
    @Option(
            names = "--config",
            required = true,
            paramLabel = "FILE",
            description = "source./target.-prefixed client settings (bootstrap.servers, security), the mirror's "
                    + "topic.prefix / topic.rename, sync.topic, source.cluster.id (see docs/failover.md).")
    Path config;

    @Option(names = "--groups", paramLabel = "REGEX", description = "Consumer groups to move.")
    @Nullable
    String groups;

    @Option(
            names = "--mirror-topics",
            paramLabel = "REGEX",
            description = "Promote the mirror topics matching REGEX on the target (a companion cluster) instead of "
                    + "moving groups: the dry run lists them per partition with what would be cut, --execute cuts "
                    + "each partition to its last stable offset (moving the records past it aside) and promotes them.")
    @Nullable
    String mirrorTopics;

    @Option(names = "--groups.exclude", paramLabel = "REGEX", description = "Groups matching --groups to leave out.")
    @Nullable
    String groupsExclude;

    @Option(names = "--dry-run", description = "Print what would be done (the default).")
    boolean dryRun;

    @Option(names = "--execute", description = "Write the new offsets on the target.")
    boolean execute;

    @Option(
            names = "--force",
            description = "With --execute: move groups that have members on the target too (the "
                    + "members are removed from the group first; they rejoin at the new offsets).")
    boolean force;

    @Option(names = "--json", description = "Print one JSON document instead of the table.")
    boolean json;

    @Override
    public Integer call() {
        if (dryRun && execute) {
            throw new ConfigException("--dry-run and --execute exclude each other");
        }
        if (force && !execute) {
            throw new ConfigException("--force only applies with --execute");
        }
        if (MirrorTopicsOption.chosen(groups, mirrorTopics, force, groupsExclude, "promote mirror topics")) {
            return promoteMirrorTopics();
        }
        // MirrorTopicsOption.chosen refused the absence of both --groups and --mirror-topics.
        GroupFilter filter = GroupFilter.of(
                Objects.requireNonNull(groups, "--groups"), groupsExclude, "--groups", "--groups.exclude");
        FailoverConfig cfg = FailoverConfig.load(config);
        PrintWriter out = spec.commandLine().getOut();
        try (FailoverPlanner planner = new FailoverPlanner(cfg, Time.SYSTEM)) {
            FailoverPlan plan = planner.plan(filter);
            Map<String, FailoverPlanner.GroupResult> results = null;
            if (execute) {
                results = new LinkedHashMap<>();
                // On stderr, and only on a terminal without --json: stdout keeps the result alone.
                Progress moving = Progress.onStderr("failover: moving groups", "groups", json, Time.SYSTEM);
                for (FailoverPlanner.GroupResult r : planner.execute(plan, force, moving)) {
                    results.put(r.group(), r);
                }
                List<String> extra = planner.warnings();
                if (!extra.isEmpty()) {
                    plan = new FailoverPlan(
                            plan.sourceReachable(),
                            plan.sourceCluster(),
                            plan.targetCluster(),
                            plan.timeMs(),
                            plan.groups(),
                            extra);
                }
            }
            if (json) {
                out.println(PlanText.json(plan, execute, results));
            } else {
                PlanText.text(
                        out,
                        plan,
                        execute,
                        results,
                        cfg.source().getProperty("bootstrap.servers"),
                        cfg.target().getProperty("bootstrap.servers"));
            }
            out.flush();
            if (results != null
                    && results.values().stream()
                            .anyMatch(r -> r.outcome() == FailoverPlanner.Outcome.FAILED
                                    || r.outcome() == FailoverPlanner.Outcome.REFUSED_ACTIVE)) {
                return Cli.FAILED;
            }
            return Cli.OK;
        }
    }

    private Integer promoteMirrorTopics() {
        Pattern pattern = MirrorTopicsOption.pattern(Objects.requireNonNull(mirrorTopics, "--mirror-topics"));
        FailoverConfig cfg = FailoverConfig.load(config);
        PrintWriter out = spec.commandLine().getOut();
        Properties sourceProps = new Properties();
        sourceProps.putAll(cfg.source());
        // The source may be gone: its ends only fill the report, so do not wait long for them.
        sourceProps.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        sourceProps.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        try (Admin target = Admin.create(cfg.target());
                Admin source = Admin.create(sourceProps)) {
            List<MirrorTopicPromotion.TopicResult> results = new MirrorTopicPromotion(
                            target, cfg.target(), Optional.of(source), Time.SYSTEM, Duration.ofSeconds(60))
                    .run(pattern, execute);
            if (json) {
                out.println(PromotionText.json(results, execute));
            } else {
                PromotionText.text(out, results, execute);
            }
            out.flush();
            boolean failed = results.stream()
                    .anyMatch(r -> r.outcome() == MirrorTopicPromotion.Outcome.PROMOTED_UNSTABLE
                            || r.outcome() == MirrorTopicPromotion.Outcome.NOT_PROMOTED);
            return failed ? Cli.FAILED : Cli.OK;
        } catch (LinkException e) {
            spec.commandLine().getErr().println("failover: " + e.getMessage());
            return Cli.FAILED;
        }
    }
}
