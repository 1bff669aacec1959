package dev.strait.docker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.Docker;
import dev.strait.testkit.PromQlNames;
import dev.strait.testkit.RequiresDocker;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * docker/compose.two-dc.yml: companion brokers in both datacenters (3 nodes in dc1, one in dc2), with its profile
 * "monitoring" (issue 25): besides the suite's scenario, once the first records are copied, the stack's Prometheus
 * (Debian's, {@link Docker#prometheusImage()}) scrapes every process of the stack, loaded every rule group of
 * docker/prometheus/alerts.yml and evaluates each rule without error, and has at least one series of every metric a
 * panel or a template variable of dashboards/ or an alert rule queries (a metric renamed in the code, or one no
 * process exports until something happens, fails here). Then the mirror dashboard's throughput panel is drawn by
 * Prometheus's graph page in headless chromium and saved as target/dashboard-panel.png.
 */
@RequiresDocker(strait = true, prometheus = true)
class TwoDatacenterStackIT extends TwoDatacenterStackSuite {
    /** The /metrics port of each process of the stack, as docker/prometheus/prometheus.yml scrapes them. */
    private static final Map<String, Integer> METRICS_PORTS = Map.of(
            "dc1-broker", 9201,
            "dc1-broker-2", 9202,
            "dc1-broker-3", 9203,
            "dc2-broker", 9204,
            "mirror", 9101,
            "lag-monitor", 9102,
            "canary", 9103);

    private static final Path ALERTS = ComposeStack.DOCKER_DIR.resolve("prometheus/alerts.yml");
    /** The panel drawn: records read and written per second (dashboards/strait-mirror.json). */
    private static final String PANEL = "strait-mirror.json panel 8 \"Records read and written\" B";

    private static final Path SCREENSHOT = ComposeStack.DOCKER_DIR.resolve("target/dashboard-panel.png");
    /** Scrapes and rule evaluations are every 15 s (prometheus.yml): a few of them, on a loaded machine. */
    private static final Duration SCRAPED = Duration.ofMinutes(2);

    @Override
    String composeFile() {
        return "compose.two-dc.yml";
    }

    @Override
    List<String> profiles() {
        return List.of("monitoring");
    }

    @Override
    void afterFirstCopy(ComposeStack stack) throws Exception {
        StackPrometheus prometheus = new StackPrometheus(stack);
        long started = System.nanoTime();

        // Every process of the stack is a target, and each is up (scraped, and answered)
        assertThat(METRICS_PORTS.keySet())
                .as("metrics ports of the stack's services")
                .isEqualTo(Set.copyOf(SERVICES));
        Set<String> expected = METRICS_PORTS.values().stream()
                .map(port -> "http://127.0.0.1:" + port + "/metrics")
                .collect(Collectors.toCollection(TreeSet::new));
        AtomicReference<List<StackPrometheus.Target>> targets = new AtomicReference<>();
        Await.until("every target of Prometheus up (" + expected + ")", SCRAPED, () -> {
            List<StackPrometheus.Target> now = prometheus.targets();
            targets.set(now);
            return now != null
                    && now.size() == expected.size()
                    && now.stream().allMatch(t -> t.health().equals("up"));
        });
        assertThat(targets.get().stream().map(StackPrometheus.Target::scrapeUrl).collect(Collectors.toSet()))
                .as("the targets Prometheus scrapes")
                .isEqualTo(expected);

        // Every rule group of alerts.yml is loaded, and every rule evaluated without error
        List<String> alertLines = Files.readAllLines(ALERTS, StandardCharsets.UTF_8);
        Set<String> groups = matches(alertLines, Pattern.compile("^\\s*- name:\\s*(\\S+)\\s*$"));
        long alerts = alertLines.stream()
                .filter(l -> l.matches("^\\s*- alert:\\s*\\S+\\s*$"))
                .count();
        AtomicReference<List<StackPrometheus.Rule>> rules = new AtomicReference<>();
        Await.until("every rule of " + ALERTS + " evaluated", SCRAPED, () -> {
            List<StackPrometheus.Rule> now = prometheus.rules();
            rules.set(now);
            return now != null
                    && !now.isEmpty()
                    && now.stream().noneMatch(r -> r.health().equals("unknown"));
        });
        assertThat(rules.get().stream().map(StackPrometheus.Rule::group).collect(Collectors.toSet()))
                .as("rule groups Prometheus loaded")
                .isEqualTo(groups);
        assertThat(rules.get()).as("rules Prometheus loaded").hasSize((int) alerts);
        assertThat(rules.get().stream()
                        .filter(r -> !r.health().equals("ok"))
                        .map(r -> r.name() + ": " + r.health() + " " + r.lastError())
                        .toList())
                .as("rules in error")
                .isEmpty();

        // Every metric a dashboard or a rule queries has series in Prometheus
        Map<String, Set<String>> queried = DashboardQueries.metrics(DashboardQueries.all());
        for (StackPrometheus.Rule rule : rules.get()) {
            PromQlNames.of(rule.query())
                    .forEach(m ->
                            queried.computeIfAbsent(m, k -> new TreeSet<>()).add("alerts.yml " + rule.name()));
        }
        Map<String, Set<String>> missing = new TreeMap<>();
        try {
            Await.until("every metric of the dashboards and rules in Prometheus", SCRAPED, () -> {
                missing.clear();
                queried.forEach((metric, where) -> {
                    Long count = prometheus.seriesCount(metric);
                    if (count == null || count == 0) {
                        missing.put(metric, where);
                    }
                });
                return missing.isEmpty();
            });
        } catch (AssertionError timedOut) {
            // the assertion below says which
        }
        assertThat(missing)
                .as(
                        "metrics the dashboards or rules query without a series in Prometheus (renamed, or exported "
                                + "only after an event?), each with where it is queried; %d metrics checked",
                        queried.size())
                .isEmpty();
        System.out.printf(
                "%s: Prometheus: %d targets up, %d rules ok, %d queried metrics with data, in %d s%n",
                getClass().getSimpleName(),
                targets.get().size(),
                rules.get().size(),
                queried.size(),
                Duration.ofNanos(System.nanoTime() - started).toSeconds());

        screenshot(prometheus);
    }

    /** The panel, drawn by Prometheus's graph page over the records just copied; chromium is needed in CI. */
    private static void screenshot(StackPrometheus prometheus) throws Exception {
        Path chromium = PanelScreenshot.chromium();
        if (chromium == null) {
            String why = "chromium is not on the PATH (apt-get install chromium, or STRAIT_CHROMIUM=/path/to/it)";
            if (Docker.inCi()) {
                throw new AssertionError(why + " and CI must draw the dashboard panel: .ci/run installs it");
            }
            System.err.println("TwoDatacenterStackIT: no screenshot of the dashboard panel: " + why);
            return;
        }
        String expr = PanelScreenshot.runnable(DashboardQueries.all().get(PANEL));
        assertThat(expr).as("the query of %s", PANEL).contains("strait_mirror_records_produced_total");
        // A rate needs two scrapes in its window; the metrics' first series need only one
        Await.until("the query of " + PANEL + " has data", SCRAPED, () -> {
            Long series = prometheus.seriesCount(expr);
            return series != null && series > 0;
        });
        String url = PanelScreenshot.graphUrl(prometheus.url(), expr);
        String dom = PanelScreenshot.shoot(chromium, url, SCREENSHOT);
        assertThat(PanelScreenshot.problems(dom))
                .as("Prometheus's graph page for %s (%s); screenshot %s", PANEL, url, SCREENSHOT)
                .isEmpty();
        System.out.println("TwoDatacenterStackIT: " + PANEL + " drawn: " + SCREENSHOT + " (" + url + ")");
    }

    private static Set<String> matches(List<String> lines, Pattern pattern) {
        Set<String> found = new TreeSet<>();
        for (String line : lines) {
            Matcher m = pattern.matcher(line);
            if (m.matches()) {
                found.add(m.group(1));
            }
        }
        return found;
    }
}
