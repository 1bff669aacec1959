package dev.strait.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.testkit.PromQlNames;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The PromQL of the Grafana dashboards of {@code dashboards/}: every panel target's {@code expr} (panels inside rows
 * too) and the expression each query variable selects with ({@code label_values(expr, label)} and
 * {@code query_result(expr)}; {@code label_values(label)} selects none), keyed by where it is. mirror-cli's
 * DashboardsTest checks the dashboards against the processes' code; this is what the stack's Prometheus is asked.
 */
final class DashboardQueries {
    static final Path DIR = ComposeStack.DOCKER_DIR.resolve("../dashboards").normalize();

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern LABEL_VALUES =
            Pattern.compile("^label_values\\((.*),\\s*\\w+\\s*\\)$", Pattern.DOTALL);
    private static final Pattern LABEL_ONLY = Pattern.compile("^label_values\\(\\s*\\w+\\s*\\)$");
    private static final Pattern QUERY_RESULT = Pattern.compile("^query_result\\((.*)\\)$", Pattern.DOTALL);

    private DashboardQueries() {}

    /** The queries of every dashboard file in {@link #DIR}, in file order. */
    static Map<String, String> all() throws IOException {
        Map<String, String> queries = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(DIR)) {
            for (Path file :
                    files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
                queries.putAll(of(file.getFileName().toString(), Files.readString(file)));
            }
        }
        return queries;
    }

    /** The queries of one dashboard model, as "file panel id "title" refId" or "file variable name". */
    static Map<String, String> of(String name, String json) throws IOException {
        JsonNode dashboard = JSON.readTree(json);
        Map<String, String> queries = new LinkedHashMap<>();
        for (JsonNode variable : dashboard.path("templating").path("list")) {
            if (variable.path("type").asText().equals("query")) {
                String expr = variableExpr(name, variable);
                if (!expr.isEmpty()) {
                    queries.put(name + " variable " + variable.path("name").asText(), expr);
                }
            }
        }
        for (JsonNode panel : dashboard.path("panels")) {
            addTargets(name, panel, queries);
            for (JsonNode inRow : panel.path("panels")) {
                addTargets(name, inRow, queries);
            }
        }
        return queries;
    }

    /** The metric names the queries select, each with the places that select it. */
    static Map<String, Set<String>> metrics(Map<String, String> queries) {
        Map<String, Set<String>> metrics = new TreeMap<>();
        queries.forEach((where, expr) -> PromQlNames.of(expr)
                .forEach(m -> metrics.computeIfAbsent(m, k -> new TreeSet<>()).add(where)));
        return metrics;
    }

    private static void addTargets(String name, JsonNode panel, Map<String, String> queries) {
        for (JsonNode target : panel.path("targets")) {
            String expr = target.path("expr").asText("").strip();
            if (!expr.isEmpty()) {
                queries.put(
                        name + " panel " + panel.path("id").asInt() + " \""
                                + panel.path("title").asText() + "\" "
                                + target.path("refId").asText(),
                        expr);
            }
        }
    }

    private static String variableExpr(String name, JsonNode variable) {
        JsonNode q = variable.path("query");
        String query = (q.isObject() ? q.path("query").asText("") : q.asText("")).strip();
        Matcher m = LABEL_VALUES.matcher(query);
        if (m.matches()) {
            return m.group(1).strip();
        }
        m = QUERY_RESULT.matcher(query);
        if (m.matches()) {
            return m.group(1).strip();
        }
        if (LABEL_ONLY.matcher(query).matches()) {
            return "";
        }
        throw new AssertionError(name + ": template variable "
                + variable.path("name").asText()
                + " has a query this reader does not know (" + query + "): use label_values(metric{...}, label) or "
                + "query_result(expr)");
    }
}
