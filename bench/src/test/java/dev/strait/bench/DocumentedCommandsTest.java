package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every {@code bin/bench} command that README.md and docs/*.md quote parses with today's flags. */
class DocumentedCommandsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");
    private static final Pattern SPAN = Pattern.compile("`([^`]+)`");

    @Test
    void everyQuotedCommandParses() throws IOException {
        List<String> commands = new ArrayList<>();
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        for (Path file : files) {
            commands.addAll(commands(Files.readString(file, StandardCharsets.UTF_8)));
        }
        // The docs quote broker, cluster, nemesis, lag, sync, sync-scale, failover, mirror-topics and the mirror bench.
        assertThat(commands)
                .hasSizeGreaterThan(30)
                .contains(
                        "bin/bench --records 200000 --streams 1 --no-mm2",
                        "bin/bench lag --churn",
                        "bin/bench sync --live",
                        "bin/bench sync-scale",
                        "bin/bench --help",
                        "bin/bench failover",
                        "bin/bench mirror-topics --records 400000",
                        "bin/bench broker --nodes 3 --records 20000 --session-timeout-ms 3000",
                        "bin/bench cluster --records 100000 --record-size 1024 --partitions 6 --strait-flush-on-ack"
                                + " --runs 2      --failover-timeout-s 40 --step-timeout-s 240",
                        "bin/bench nemesis --system strait --runs 1 --seed 3000 --fault-phase-s 40 --faults"
                                + " power-loss-all,pause,partition --flush-on-ack");
        for (String command : commands) {
            List<String> words = new ArrayList<>(Arrays.asList(command.trim().split("\\s+")));
            words.remove(0); // bin/bench
            String mode = words.isEmpty() || words.get(0).startsWith("-") ? "" : words.remove(0);
            if (mode.matches("[A-Z]+")) {
                continue; // bin/bench MODE ...: a placeholder
            }
            String[] args = words.toArray(String[]::new);
            Object parsed = switch (mode) {
                case "" -> MirrorBench.parse(args);
                case "lag" -> LagBench.parse(args);
                case "sync" -> SyncBench.parse(args);
                case "sync-scale" -> SyncScaleBench.parse(args);
                case "failover" -> FailoverBench.parse(args);
                case "metadata" -> MetadataBench.parse(args);
                case "cluster" -> ClusterBench.parse(args);
                case "nemesis" -> NemesisBench.parse(args);
                case "mirror-topics" -> MirrorTopicsBench.parse(args);
                case "broker" -> words.contains("--nodes") ? ClusterBench.parse(args) : BrokerBench.parse(args);
                default -> throw new AssertionError("unknown mode in the docs: " + command);
            };
            boolean help = words.contains("--help") || words.contains("-h");
            assertThat(parsed == null).as(command).isEqualTo(help);
        }
    }

    /** The bin/bench commands of a Markdown text: code lines (fenced or indented) and whole inline code spans. */
    static List<String> commands(String markdown) {
        List<String> out = new ArrayList<>();
        Matcher fence = FENCE.matcher(markdown);
        while (fence.find()) {
            codeLines(fence.group(), out);
        }
        String prose = FENCE.matcher(markdown).replaceAll("");
        StringBuilder indented = new StringBuilder();
        for (String line : prose.split("\n")) {
            if (line.startsWith("    ")) {
                indented.append(line).append('\n');
            }
        }
        codeLines(indented.toString(), out);
        Matcher span = SPAN.matcher(prose);
        while (span.find()) {
            split(span.group(1).replace('\n', ' '), out);
        }
        return out;
    }

    private static void codeLines(String code, List<String> out) {
        for (String line : code.replace("\\\n", " ").split("\n")) {
            int comment = line.indexOf('#');
            split(comment < 0 ? line : line.substring(0, comment), out);
        }
    }

    /** The commands of one shell line, without environment settings and nice. */
    private static void split(String line, List<String> out) {
        for (String part : line.split(";")) {
            String c =
                    part.trim().replaceFirst("^([A-Z_]+=\\S+\\s+)*", "").replaceFirst("^nice(\\s+-n\\s+\\d+)?\\s+", "");
            boolean synopsis = c.matches(".*(\\[|\\||\\.\\.\\.|<).*"); // [--flag N], a|b, NAME,..., <seed>
            if (!synopsis && (c.equals("bin/bench") || c.startsWith("bin/bench "))) {
                out.add(c);
            }
        }
    }
}
