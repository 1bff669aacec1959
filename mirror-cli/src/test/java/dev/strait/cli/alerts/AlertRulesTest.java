package dev.strait.cli.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.canary.CanaryState;
import dev.strait.lag.status.Status;
import dev.strait.testkit.Docker;
import dev.strait.testkit.PromQlNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * docker/prometheus/alerts.yml (issue 25): promtool accepts the rules and passes their unit tests
 * (alerts.test.yml), every rule is tested firing and not firing, carries a severity, a summary and a runbook line,
 * and queries only metrics the mirror, the lag monitor or the canary export under that exact name (a renamed
 * metric fails here), reading the status enums in the order the rules assume.
 */
class AlertRulesTest {
    private static final Path DIR = Path.of("..").toAbsolutePath().normalize().resolve("docker/prometheus");
    private static final Path RULES = DIR.resolve("alerts.yml");
    private static final Path TESTS = DIR.resolve("alerts.test.yml");
    /** Not exported by a Strait process: Prometheus writes it for every scrape (1 reached, 0 not). */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up");

    private static AlertRuleFile rules;

    @BeforeAll
    static void read() throws Exception {
        rules = AlertRuleFile.read(RULES);
    }

    @Test
    void promtoolChecksTheRulesAndPassesTheirUnitTests() {
        Promtool.require();
        Docker.Result check = Promtool.checkRules(RULES);
        assertThat(check.ok())
                .as("promtool check rules %s:%n%s", RULES, check.output())
                .isTrue();
        // promtool counts the rules itself: the line reader of this test must have seen every one of them.
        assertThat(check.output()).contains("SUCCESS: " + rules.rules().size() + " rules found");

        Docker.Result test = Promtool.testRules(TESTS);
        assertThat(test.ok())
                .as("promtool test rules %s:%n%s", TESTS, test.output())
                .isTrue();
        assertThat(test.output()).contains("SUCCESS");
    }

    @Test
    void everyRuleIsTestedFiringAndNotFiringAndSaysWhatToDo() throws Exception {
        Map<String, Set<String>> cases = testCases(Files.readAllLines(TESTS, StandardCharsets.UTF_8));
        List<String> names =
                rules.rules().stream().map(AlertRuleFile.Rule::name).toList();
        assertThat(names).as("alert names").doesNotHaveDuplicates().hasSizeGreaterThanOrEqualTo(15);
        assertThat(cases.keySet())
                .as("alerts.test.yml tests only alerts that exist (a test of a misspelt alert expects nothing, and "
                        + "passes)")
                .isSubsetOf(names);
        for (AlertRuleFile.Rule rule : rules.rules()) {
            assertThat(cases.getOrDefault(rule.name(), Set.of()))
                    .as(
                            "alerts.test.yml cases of %s (one with exp_alerts listed, one with exp_alerts: [])",
                            rule.name())
                    .contains("firing", "not firing");
            assertThat(rule.severity()).as("severity of %s", rule.name()).isIn("page", "ticket");
            assertThat(rule.summary()).as("summary of %s", rule.name()).isNotBlank();
            assertThat(rule.runbook()).as("runbook of %s", rule.name()).isNotBlank();
        }
    }

    @Test
    void everyMetricTheRulesQueryIsOneAStraitProcessExports() throws Exception {
        String mirror = ExportedMetrics.mirror();
        String lagMonitor = ExportedMetrics.lagMonitor();
        String canary = ExportedMetrics.canary();
        String broker = ExportedMetrics.broker();
        Set<String> exported = new TreeSet<>(PROMETHEUS_OWN);
        exported.addAll(ExportedMetrics.names(broker));
        exported.addAll(ExportedMetrics.names(mirror));
        exported.addAll(ExportedMetrics.names(lagMonitor));
        exported.addAll(ExportedMetrics.names(canary));

        Map<String, Set<String>> unknown = unknownMetrics(rules.rules(), exported);
        assertThat(unknown)
                .as(
                        "metrics the alert rules query that no Strait process exports (renamed? see MetricsFormat, "
                                + "StatusFormat, CanaryFormat); exported: %s",
                        exported)
                .isEmpty();
        // The label values the rules select on, too.
        assertThat(lagMonitor).contains("strait_lag_audit_findings_total{group=\"mirror\",kind=\"missing\"}");
        String scrapeConfig = Files.readString(DIR.resolve("prometheus.yml"), StandardCharsets.UTF_8);
        for (String job : List.of("strait-mirror", "strait-lag-monitor", "strait-canary")) {
            assertThat(scrapeConfig)
                    .as("prometheus.yml scrapes the job the rules name")
                    .contains("job_name: " + job);
        }
    }

    @Test
    void theNameCheckFindsAMetricNoProcessExports() {
        // The check itself must be able to fail: a rule on a misspelt name, and the PromQL words it must skip.
        AlertRuleFile.Rule misspelt = new AlertRuleFile.Rule(
                "Misspelt",
                "sum by (group, topic) (rate(strait_mirror_commits_total{job=~\"strait-.*\"}[5m])) > 0 "
                        + "and on (instance) strait_lag_group_status >= bool 3 unless up == 0",
                "page",
                "s",
                "r");
        assertThat(PromQlNames.of(misspelt.expr()))
                .containsExactlyInAnyOrder("strait_mirror_commits_total", "strait_lag_group_status", "up");
        assertThat(unknownMetrics(List.of(misspelt), Set.of("strait_lag_group_status", "up")))
                .isEqualTo(Map.of("Misspelt", Set.of("strait_mirror_commits_total")));
        assertThat(rules.rules())
                .allSatisfy(rule -> assertThat(PromQlNames.of(rule.expr()))
                        .as("metrics of %s", rule.name())
                        .isNotEmpty());
    }

    @Test
    void theStatusesAreNumberedAsTheRulesAssume() throws Exception {
        // alerts.yml compares strait_lag_group_status and strait_canary_state with these ordinals.
        assertThat(Arrays.stream(Status.values()).map(Enum::name))
                .containsExactly("OK", "WARN", "REWIND", "STALL", "STOP", "ERR");
        assertThat(Arrays.stream(CanaryState.values()).map(Enum::name)).containsExactly("OK", "LATE", "LOST");
        assertThat(Files.readString(RULES, StandardCharsets.UTF_8))
                .contains("strait_lag_group_status: 0 OK, 1 WARN, 2 REWIND, 3 STALL, 4 STOP, 5 ERR.")
                .contains("strait_canary_state: 0 OK, 1 LATE, 2 LOST.");
    }

    private static Map<String, Set<String>> unknownMetrics(List<AlertRuleFile.Rule> rules, Set<String> exported) {
        Map<String, Set<String>> unknown = new TreeMap<>();
        for (AlertRuleFile.Rule rule : rules) {
            Set<String> missing = new TreeSet<>(PromQlNames.of(rule.expr()));
            missing.removeAll(exported);
            if (!missing.isEmpty()) {
                unknown.put(rule.name(), missing);
            }
        }
        return unknown;
    }

    /** Per alert name in alerts.test.yml: "firing" when a case lists expected alerts, "not firing" for []. */
    private static Map<String, Set<String>> testCases(List<String> lines) {
        Pattern alertname = Pattern.compile("^\\s*alertname:\\s*(\\S+)\\s*$");
        Pattern expected = Pattern.compile("^\\s*exp_alerts:\\s*(\\S*)\\s*$");
        Map<String, Set<String>> cases = new TreeMap<>();
        List<String> unmatched = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher name = alertname.matcher(lines.get(i));
            if (!name.matches()) {
                continue;
            }
            Matcher exp = i + 1 < lines.size() ? expected.matcher(lines.get(i + 1)) : null;
            if (exp == null || !exp.matches()) {
                unmatched.add(lines.get(i).strip());
                continue;
            }
            cases.computeIfAbsent(name.group(1), k -> new TreeSet<>())
                    .add(exp.group(1).equals("[]") ? "not firing" : "firing");
        }
        assertThat(unmatched)
                .as("alertname lines not followed by exp_alerts in alerts.test.yml")
                .isEmpty();
        return cases;
    }
}
