package dev.strait.cli.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.canary.CanaryState;
import dev.strait.lag.status.Status;
import dev.strait.testkit.PromQlNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboards of {@code dashboards/} (issue 25): each imports as it is (a uid, a title, the Prometheus
 * data source as a variable, never a fixed data source uid), every panel says what it shows and what to do, every
 * metric a panel or a template variable queries is one the mirror, the lag monitor or the canary exports under that
 * name and with the labels the query selects on (a renamed metric or label fails here), the jobs they name are the
 * ones prometheus.yml scrapes, and the status panels name the ordinals as the enums number them.
 */
class DashboardsTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path DIR = ROOT.resolve("dashboards");
    private static final Path SCRAPE_CONFIG = ROOT.resolve("docker/prometheus/prometheus.yml");
    private static final String DATASOURCE = "${datasource}";
    /** Labels Prometheus adds to every series it scrapes, besides those prometheus.yml sets. */
    private static final Set<String> SCRAPE_LABELS = Set.of("job", "instance");
    /** Not exported by a Strait process: Prometheus writes it for every scrape (1 reached, 0 not). */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");

    private static final Map<String, List<String>> STATUS_METRICS = Map.of(
            "strait_lag_group_status", names(Status.values()),
            "strait_lag_partition_status", names(Status.values()),
            "strait_canary_state", names(CanaryState.values()));

    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile("([a-zA-Z_]\\w*)\\s*(?:=~|!~|!=|=)\\s*\"");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s");
    private static final Pattern JOB = Pattern.compile("\\bjob\\s*=\\s*\"([^\"]*)\"");

    private static List<DashboardFile> dashboards;

    @BeforeAll
    static void read() throws Exception {
        List<DashboardFile> read = new ArrayList<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                read.add(DashboardFile.read(file));
            }
        }
        dashboards = List.copyOf(read);
    }

    @Test
    void everyDashboardImportsAsItIsAndEveryPanelSaysWhatItShows() {
        assertThat(dashboards.stream().map(DashboardFile::uid))
                .as("dashboard uids in %s", DIR)
                .doesNotHaveDuplicates()
                .contains("strait-mirror", "strait-lag", "strait-canary", "strait-group-offset-sync");
        assertThat(dashboards.stream().map(DashboardFile::title)).doesNotHaveDuplicates();
        List<String> problems = new ArrayList<>();
        dashboards.forEach(d -> problems.addAll(structureProblems(d)));
        assertThat(problems).as("problems of the dashboards in %s", DIR).isEmpty();
    }

    @Test
    void theStructureCheckFindsWhatGrafanaOrAnOperatorWouldMiss() throws Exception {
        DashboardFile broken = DashboardFile.parse("broken.json", """
                {"uid": "", "title": "Broken", "schemaVersion": 39,
                 "templating": {"list": []},
                 "panels": [
                   {"id": 1, "type": "timeseries", "title": "No description",
                    "gridPos": {"x": 0, "y": 0, "w": 12, "h": 8},
                    "datasource": {"type": "prometheus", "uid": "P1809F7CD0C75ACF3"},
                    "targets": [{"refId": "A", "expr": "up"}]},
                   {"id": 1, "type": "stat", "title": "", "description": "two\\nlines",
                    "gridPos": {"x": 20, "y": 0, "w": 6, "h": 8}, "datasource": "${datasource}",
                    "targets": [{"refId": "A", "expr": ""}]},
                   {"id": 3, "type": "stat", "title": "No queries", "description": "d", "datasource": "${datasource}",
                    "gridPos": {"x": 0, "y": 8, "w": 6, "h": 8}, "targets": []}
                 ]}
                """);
        assertThat(structureProblems(broken))
                .containsExactlyInAnyOrder(
                        "broken.json: no uid",
                        "broken.json: no template variable \"datasource\" of type datasource for prometheus",
                        "broken.json: panel 1 \"No description\": no description",
                        "broken.json: a data source other than the variable: {\"type\":\"prometheus\",\"uid\":"
                                + "\"P1809F7CD0C75ACF3\"}",
                        "broken.json: panel id 1 used twice",
                        "broken.json: panel 1 \"\": no title",
                        "broken.json: panel 1 \"\": description is not one line",
                        "broken.json: panel 1 \"\": target A has no expr",
                        "broken.json: panel 1 \"\": wider than the grid (x 20 + w 6 > 24)",
                        "broken.json: panel 3 \"No queries\": no target");
    }

    @Test
    void everyMetricTheDashboardsQueryIsExportedWithTheLabelsTheySelectOn() throws Exception {
        Map<String, Set<String>> exported = new TreeMap<>();
        for (String exposition : List.of(
                ExportedMetrics.mirror(),
                ExportedMetrics.lagMonitor(),
                ExportedMetrics.canary(),
                ExportedMetrics.broker())) {
            labelsByMetric(exposition)
                    .forEach((metric, labels) -> exported.computeIfAbsent(metric, k -> new TreeSet<>())
                            .addAll(labels));
        }
        String scrapeConfig = Files.readString(SCRAPE_CONFIG, StandardCharsets.UTF_8);
        Set<String> scrapeLabels = scrapeLabels(scrapeConfig);
        PROMETHEUS_OWN.forEach(m -> exported.put(m, Set.of()));

        Map<String, Set<String>> unknown = new TreeMap<>();
        dashboards.forEach(d -> unknown.putAll(unknownMetrics(d, exported, scrapeLabels)));
        assertThat(unknown)
                .as(
                        "metrics (and metric{label}) the dashboards query that no Strait process exports (renamed? "
                                + "see MetricsFormat, StatusFormat, CanaryFormat); exported: %s, scrape labels: %s",
                        exported, scrapeLabels)
                .isEmpty();

        Set<String> jobs = new TreeSet<>();
        Matcher jobName = Pattern.compile("job_name:\\s*(\\S+)").matcher(scrapeConfig);
        while (jobName.find()) {
            jobs.add(jobName.group(1));
        }
        Set<String> queried = new TreeSet<>();
        dashboards.forEach(d -> queried.addAll(jobsQueried(d)));
        assertThat(queried)
                .as("jobs the dashboards select on, against prometheus.yml")
                .isNotEmpty()
                .isSubsetOf(jobs);
    }

    @Test
    void theMetricCheckFindsAMisspeltNameAndAnUnknownLabel() throws Exception {
        DashboardFile misspelt = DashboardFile.parse("misspelt.json", """
                {"templating": {"list": [
                   {"name": "group", "type": "query",
                    "query": {"query": "label_values(strait_lag_group_stat{job=\\"strait-lag-monitor\\"}, group)"}},
                   {"name": "topic", "type": "query", "query": "label_values(topic)"}]},
                 "panels": [{"id": 7, "type": "timeseries", "title": "Commits", "targets": [
                   {"refId": "A", "expr": "sum by (instance) (rate(strait_mirror_commit_totals{route=~\\"$route\\"}[$__rate_interval]))"},
                   {"refId": "B", "expr": "max by (topic) (strait_lag_time_seconds{group=~\\"$group\\", topc=~\\"$topic\\"})"}]}]}
                """);
        Map<String, Set<String>> exported = Map.of(
                "strait_lag_group_status", Set.of("group"),
                "strait_lag_time_seconds", Set.of("group", "topic", "partition"),
                "strait_mirror_commit_time_seconds_count", Set.of());
        assertThat(unknownMetrics(misspelt, exported, Set.of("job", "instance", "route")))
                .isEqualTo(Map.of(
                        "misspelt.json variable group", Set.of("strait_lag_group_stat"),
                        "misspelt.json panel 7 \"Commits\" A", Set.of("strait_mirror_commit_totals"),
                        "misspelt.json panel 7 \"Commits\" B", Set.of("strait_lag_time_seconds{topc}")));
        // Every panel of the real dashboards selects at least one metric: the check above has something to check.
        for (DashboardFile d : dashboards) {
            for (JsonNode panel : d.panels()) {
                if (!DashboardFile.isRow(panel)) {
                    assertThat(DashboardFile.exprs(panel).stream().flatMap(e -> PromQlNames.of(e).stream()))
                            .as(
                                    "metrics of %s panel %s",
                                    d.name(), panel.path("title").asText())
                            .isNotEmpty();
                }
            }
        }
    }

    @Test
    void everyStatusPanelNamesTheOrdinalsAsTheEnumsNumberThem() {
        Map<String, Integer> panelsPerMetric = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (DashboardFile d : dashboards) {
            for (JsonNode panel : d.panels()) {
                for (String metric : statusMetrics(panel)) {
                    panelsPerMetric.merge(metric, 1, Integer::sum);
                }
                problems.addAll(statusProblems(d.name(), panel));
            }
        }
        assertThat(problems).isEmpty();
        assertThat(panelsPerMetric).as("status panels per status metric").containsOnlyKeys(STATUS_METRICS.keySet());
    }

    @Test
    void theStatusCheckFindsOrdinalsNamedWrongly() throws Exception {
        DashboardFile swapped = DashboardFile.parse("swapped.json", """
                {"panels": [
                  {"id": 2, "type": "stat", "title": "Group status",
                   "targets": [{"refId": "A", "expr": "strait_lag_group_status{group=~\\"$group\\"}"}],
                   "fieldConfig": {"defaults": {"mappings": [{"type": "value", "options": {
                     "0": {"text": "OK", "color": "green"}, "1": {"text": "WARN", "color": "yellow"},
                     "2": {"text": "REWIND", "color": "orange"}, "3": {"text": "STOP", "color": "red"},
                     "4": {"text": "STALL", "color": "red"}, "5": {"text": "ERR"}}}]}}},
                  {"id": 3, "type": "state-timeline", "title": "Canary",
                   "targets": [{"refId": "A", "expr": "strait_canary_state"}]}]}
                """);
        List<String> problems = new ArrayList<>();
        swapped.panels().forEach(p -> problems.addAll(statusProblems(swapped.name(), p)));
        assertThat(problems)
                .containsExactly(
                        "swapped.json panel 2 \"Group status\": value mappings {0=OK, 1=WARN, 2=REWIND, 3=STOP, "
                                + "4=STALL, 5=ERR}, the enum numbers them {0=OK, 1=WARN, 2=REWIND, 3=STALL, 4=STOP, "
                                + "5=ERR}",
                        "swapped.json panel 2 \"Group status\": mapping of 5 has no colour",
                        "swapped.json panel 3 \"Canary\": value mappings {}, the enum numbers them {0=OK, 1=LATE, "
                                + "2=LOST}");
    }

    private static List<String> structureProblems(DashboardFile d) {
        String n = d.name();
        List<String> problems = new ArrayList<>();
        if (d.uid().isBlank()) {
            problems.add(n + ": no uid");
        } else if (!d.uid().matches("[a-z0-9-]{1,40}")) {
            problems.add(n + ": uid " + d.uid() + " is not 1 to 40 of [a-z0-9-]");
        }
        if (d.title().isBlank()) {
            problems.add(n + ": no title");
        }
        if (d.json().path("schemaVersion").asInt() < 36) {
            problems.add(n + ": schemaVersion below 36 (Grafana 9), the data source variable needs it");
        }
        boolean datasourceVariable = d.variables().stream()
                .anyMatch(v -> v.path("name").asText().equals("datasource")
                        && v.path("type").asText().equals("datasource")
                        && v.path("query").asText().equals("prometheus"));
        if (!datasourceVariable) {
            problems.add(n + ": no template variable \"datasource\" of type datasource for prometheus");
        }
        datasources(d.json(), problems, n);
        Set<Integer> ids = new HashSet<>();
        for (JsonNode panel : d.panels()) {
            int id = panel.path("id").asInt(0);
            String p = n + ": panel " + id + " \"" + panel.path("title").asText("") + "\"";
            if (id <= 0) {
                problems.add(p + ": no id");
            } else if (!ids.add(id)) {
                problems.add(n + ": panel id " + id + " used twice");
            }
            if (panel.path("title").asText("").isBlank()) {
                problems.add(p + ": no title");
            }
            JsonNode grid = panel.path("gridPos");
            int x = grid.path("x").asInt(-1);
            int w = grid.path("w").asInt(0);
            if (x < 0
                    || w <= 0
                    || grid.path("h").asInt(0) <= 0
                    || grid.path("y").asInt(-1) < 0) {
                problems.add(p + ": no gridPos x, y, w and h");
            } else if (x + w > 24) {
                problems.add(p + ": wider than the grid (x " + x + " + w " + w + " > 24)");
            }
            if (DashboardFile.isRow(panel)) {
                continue;
            }
            String description = panel.path("description").asText("");
            if (description.isBlank()) {
                problems.add(p + ": no description");
            } else if (description.contains("\n")) {
                problems.add(p + ": description is not one line");
            }
            if (panel.path("targets").isEmpty()) {
                problems.add(p + ": no target");
            }
            Set<String> refIds = new HashSet<>();
            for (JsonNode target : panel.path("targets")) {
                String refId = target.path("refId").asText("");
                if (!refIds.add(refId)) {
                    problems.add(p + ": refId " + refId + " used twice");
                }
                if (target.path("expr").asText("").isBlank()) {
                    problems.add(p + ": target " + refId + " has no expr");
                }
            }
        }
        return problems;
    }

    /** Every "datasource" anywhere in the model must be the variable: a fixed uid is one Grafana's, not yours. */
    private static void datasources(JsonNode node, List<String> problems, String name) {
        if (node.isObject()) {
            node.fields().forEachRemaining(field -> {
                if (field.getKey().equals("datasource")) {
                    JsonNode ds = field.getValue();
                    String uid = ds.isObject() ? ds.path("uid").asText("") : ds.asText("");
                    if (!uid.equals(DATASOURCE)) {
                        problems.add(name + ": a data source other than the variable: " + ds);
                    }
                } else {
                    datasources(field.getValue(), problems, name);
                }
            });
        } else if (node.isArray()) {
            node.forEach(child -> datasources(child, problems, name));
        }
    }

    /**
     * Per panel target or template variable: the metrics it selects that are not exported, and "metric{label}"
     * for a label it matches on that the metric does not carry (a scrape label aside).
     */
    private static Map<String, Set<String>> unknownMetrics(
            DashboardFile d, Map<String, Set<String>> exported, Set<String> scrapeLabels) {
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode v : d.variables()) {
            if (v.path("type").asText().equals("query")) {
                queries.put(d.name() + " variable " + v.path("name").asText(), DashboardFile.variableExpr(v));
            }
        }
        for (JsonNode panel : d.panels()) {
            for (JsonNode target : panel.path("targets")) {
                queries.put(
                        d.name() + " panel " + panel.path("id").asInt() + " \""
                                + panel.path("title").asText() + "\" "
                                + target.path("refId").asText(),
                        target.path("expr").asText(""));
            }
        }
        Map<String, Set<String>> unknown = new TreeMap<>();
        queries.forEach((where, expr) -> {
            Set<String> missing = new TreeSet<>();
            for (String metric : PromQlNames.of(expr)) {
                if (!exported.containsKey(metric)) {
                    missing.add(metric);
                }
            }
            Matcher selector = SELECTOR.matcher(expr);
            while (selector.find()) {
                Set<String> labels = exported.get(selector.group(1));
                if (labels == null) {
                    continue;
                }
                Matcher label = MATCHER.matcher(selector.group(2));
                while (label.find()) {
                    String l = label.group(1);
                    if (!labels.contains(l) && !scrapeLabels.contains(l)) {
                        missing.add(selector.group(1) + "{" + l + "}");
                    }
                }
            }
            if (!missing.isEmpty()) {
                unknown.put(where, missing);
            }
        });
        return unknown;
    }

    private static Set<String> jobsQueried(DashboardFile d) {
        List<String> queries = new ArrayList<>();
        d.variables().stream()
                .filter(v -> v.path("type").asText().equals("query"))
                .forEach(v -> queries.add(DashboardFile.variableExpr(v)));
        d.panels().forEach(p -> queries.addAll(DashboardFile.exprs(p)));
        Set<String> jobs = new TreeSet<>();
        for (String q : queries) {
            Matcher m = JOB.matcher(q);
            while (m.find()) {
                jobs.add(m.group(1));
            }
        }
        return jobs;
    }

    private static Set<String> statusMetrics(JsonNode panel) {
        Set<String> metrics = new TreeSet<>();
        DashboardFile.exprs(panel).forEach(e -> metrics.addAll(PromQlNames.of(e)));
        metrics.retainAll(STATUS_METRICS.keySet());
        return metrics;
    }

    /** A panel showing a status metric maps every ordinal, and only those, to the enum constant's name. */
    private static List<String> statusProblems(String name, JsonNode panel) {
        List<String> problems = new ArrayList<>();
        Set<String> metrics = statusMetrics(panel);
        if (metrics.isEmpty()) {
            return problems;
        }
        String p = name + " panel " + panel.path("id").asInt() + " \""
                + panel.path("title").asText() + "\"";
        Set<List<String>> enums = new HashSet<>();
        metrics.forEach(m -> enums.add(STATUS_METRICS.get(m)));
        if (enums.size() > 1) {
            problems.add(p + ": shows statuses of different enums " + metrics);
            return problems;
        }
        List<String> constants = enums.iterator().next();
        Map<Integer, String> expected = new TreeMap<>();
        for (int i = 0; i < constants.size(); i++) {
            expected.put(i, constants.get(i));
        }
        Map<Integer, String> mapped = new TreeMap<>();
        List<String> uncoloured = new ArrayList<>();
        for (JsonNode mapping : panel.path("fieldConfig").path("defaults").path("mappings")) {
            if (!mapping.path("type").asText().equals("value")) {
                continue;
            }
            mapping.path("options").fields().forEachRemaining(option -> {
                mapped.put(
                        Integer.valueOf(option.getKey()),
                        option.getValue().path("text").asText());
                if (option.getValue().path("color").asText("").isBlank()) {
                    uncoloured.add(p + ": mapping of " + option.getKey() + " has no colour");
                }
            });
        }
        if (!mapped.equals(expected)) {
            problems.add(p + ": value mappings " + mapped + ", the enum numbers them " + expected);
        }
        problems.addAll(uncoloured);
        return problems;
    }

    /** The label names each metric of a Prometheus text exposition carries. */
    private static Map<String, Set<String>> labelsByMetric(String exposition) {
        Map<String, Set<String>> labels = new TreeMap<>();
        for (String name : ExportedMetrics.names(exposition)) {
            labels.put(name, new TreeSet<>());
        }
        for (String line : exposition.split("\n")) {
            Matcher sample = SAMPLE.matcher(line);
            if (line.startsWith("#") || !sample.find() || sample.group(2) == null) {
                continue;
            }
            Matcher label = Pattern.compile("([a-zA-Z_]\\w*)=\"").matcher(sample.group(2));
            while (label.find()) {
                labels.get(sample.group(1)).add(label.group(1));
            }
        }
        return labels;
    }

    private static Set<String> scrapeLabels(String scrapeConfig) {
        Set<String> labels = new TreeSet<>(SCRAPE_LABELS);
        Matcher block = Pattern.compile("labels:\\s*\\{([^}]*)}").matcher(scrapeConfig);
        while (block.find()) {
            Matcher key = Pattern.compile("(\\w+)\\s*:").matcher(block.group(1));
            while (key.find()) {
                labels.add(key.group(1));
            }
        }
        return labels;
    }

    private static List<String> names(Enum<?>[] constants) {
        return Arrays.stream(constants).map(Enum::name).toList();
    }
}
