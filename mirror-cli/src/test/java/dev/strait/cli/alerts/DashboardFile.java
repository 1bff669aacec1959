package dev.strait.cli.alerts;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Grafana dashboard of {@code dashboards/} as its JSON model: the panels (those inside rows too), each target's
 * PromQL and the PromQL the template variables query. Grafana writes a Prometheus variable query as a string or as
 * an object holding it; {@code label_values(expr, label)} and {@code query_result(expr)} select metrics, a
 * {@code label_values(label)} none. Immutable.
 */
record DashboardFile(String name, JsonNode json) {
    private static final Pattern LABEL_VALUES =
            Pattern.compile("^label_values\\((.*),\\s*\\w+\\s*\\)$", Pattern.DOTALL);
    private static final Pattern LABEL_ONLY = Pattern.compile("^label_values\\(\\s*\\w+\\s*\\)$");
    private static final Pattern QUERY_RESULT = Pattern.compile("^query_result\\((.*)\\)$", Pattern.DOTALL);

    static DashboardFile read(Path file) throws IOException {
        return parse(file.getFileName().toString(), Files.readString(file));
    }

    static DashboardFile parse(String name, String json) throws IOException {
        return new DashboardFile(name, new ObjectMapper().readTree(json));
    }

    String uid() {
        return json.path("uid").asText("");
    }

    String title() {
        return json.path("title").asText("");
    }

    /** Every panel, rows included, with the panels of collapsed rows (which Grafana keeps inside the row). */
    List<JsonNode> panels() {
        List<JsonNode> all = new ArrayList<>();
        for (JsonNode panel : json.path("panels")) {
            all.add(panel);
            panel.path("panels").forEach(all::add);
        }
        return all;
    }

    static boolean isRow(JsonNode panel) {
        return panel.path("type").asText().equals("row");
    }

    static List<String> exprs(JsonNode panel) {
        List<String> exprs = new ArrayList<>();
        panel.path("targets").forEach(t -> exprs.add(t.path("expr").asText("")));
        return exprs;
    }

    List<JsonNode> variables() {
        List<JsonNode> variables = new ArrayList<>();
        json.path("templating").path("list").forEach(variables::add);
        return variables;
    }

    /** The PromQL a query variable selects with, "" for one that selects no metric. */
    static String variableExpr(JsonNode variable) {
        JsonNode q = variable.path("query");
        String query = (q.isObject() ? q.path("query").asText("") : q.asText("")).strip();
        Matcher m = LABEL_VALUES.matcher(query);
        if (m.matches()) {
            return m.group(1);
        }
        m = QUERY_RESULT.matcher(query);
        if (m.matches()) {
            return m.group(1);
        }
        if (LABEL_ONLY.matcher(query).matches()) {
            return "";
        }
        throw new AssertionError("template variable " + variable.path("name").asText() + " has a query this test "
                + "does not read (" + query + "): use label_values(metric{...}, label) or query_result(expr)");
    }
}
