package dev.strait.docker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The Prometheus of a compose stack's profile "monitoring", through its HTTP API on the stack's PROMETHEUS_PORT:
 * the scrape targets, the rule groups it loaded and how many series a metric has now. Each call returns null while
 * Prometheus does not answer yet. Stateless besides the stack.
 */
final class StackPrometheus {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One scrape target: its URL, "up", "down" or "unknown" (not scraped yet), and the last scrape's error. */
    record Target(String job, String scrapeUrl, String health, String lastError) {}

    /** One rule of a group: "ok", "err" or "unknown" (not evaluated yet), the last evaluation's error, its PromQL. */
    record Rule(String group, String name, String health, String lastError, String query) {}

    private final ComposeStack stack;

    StackPrometheus(ComposeStack stack) {
        this.stack = stack;
    }

    /** Base URL for a browser on this host. */
    String url() {
        return "http://127.0.0.1:" + stack.port("PROMETHEUS_PORT");
    }

    List<Target> targets() {
        JsonNode data = data("/api/v1/targets?state=active");
        if (data == null) {
            return null;
        }
        List<Target> targets = new ArrayList<>();
        for (JsonNode t : data.path("activeTargets")) {
            targets.add(new Target(
                    t.path("labels").path("job").asText(),
                    t.path("scrapeUrl").asText(),
                    t.path("health").asText(),
                    t.path("lastError").asText("")));
        }
        return targets;
    }

    List<Rule> rules() {
        JsonNode data = data("/api/v1/rules");
        if (data == null) {
            return null;
        }
        List<Rule> rules = new ArrayList<>();
        for (JsonNode g : data.path("groups")) {
            for (JsonNode r : g.path("rules")) {
                rules.add(new Rule(
                        g.path("name").asText(),
                        r.path("name").asText(),
                        r.path("health").asText(),
                        r.path("lastError").asText(""),
                        r.path("query").asText()));
            }
        }
        return rules;
    }

    /** The number of series the metric has at this instant (those of the last five minutes), 0 for none. */
    Long seriesCount(String metric) {
        JsonNode data =
                data("/api/v1/query?query=" + URLEncoder.encode("count(" + metric + ")", StandardCharsets.UTF_8));
        if (data == null) {
            return null;
        }
        JsonNode result = data.path("result");
        return result.isEmpty()
                ? 0L
                : (long) Double.parseDouble(result.get(0).path("value").get(1).asText());
    }

    private JsonNode data(String path) {
        String body = stack.get("PROMETHEUS_PORT", path);
        if (body == null) {
            return null;
        }
        try {
            JsonNode answer = JSON.readTree(body);
            if (!answer.path("status").asText().equals("success")) {
                throw new AssertionError("Prometheus answered " + path + " with " + body);
            }
            return answer.path("data");
        } catch (IOException e) {
            throw new UncheckedIOException("Prometheus answered " + path + " with what is not JSON: " + body, e);
        }
    }
}
