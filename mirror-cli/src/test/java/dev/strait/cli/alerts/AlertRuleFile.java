package dev.strait.cli.alerts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The alerting rules of {@code docker/prometheus/alerts.yml}, read line by line in the layout that file keeps (one
 * {@code - alert:} per rule; {@code expr:} on its line or folded below it with {@code >-}). promtool validates the
 * YAML itself; this only needs each rule's name, expression, severity and annotations, and the test cross-checks
 * the count with promtool's. Immutable.
 */
record AlertRuleFile(List<Rule> rules) {
    record Rule(String name, String expr, String severity, String summary, String runbook) {}

    private static final Pattern ALERT = Pattern.compile("^\\s*- alert:\\s*(\\S+)\\s*$");
    private static final Pattern GROUP = Pattern.compile("^\\s*- name:.*$");
    private static final Pattern EXPR = Pattern.compile("^(\\s*)expr:\\s*(.*)$");
    private static final Pattern SEVERITY = Pattern.compile("\\bseverity:\\s*\"?(\\w+)\"?");
    private static final Pattern ANNOTATION = Pattern.compile("^\\s*(summary|runbook):\\s*\"(.*)\"\\s*$");

    AlertRuleFile {
        rules = List.copyOf(rules);
    }

    static AlertRuleFile read(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        List<Rule> rules = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher alert = ALERT.matcher(lines.get(i));
            if (!alert.matches()) {
                continue;
            }
            int end = i + 1;
            while (end < lines.size()
                    && !ALERT.matcher(lines.get(end)).matches()
                    && !GROUP.matcher(lines.get(end)).matches()) {
                end++;
            }
            rules.add(rule(alert.group(1), lines.subList(i + 1, end)));
            i = end - 1;
        }
        return new AlertRuleFile(rules);
    }

    private static Rule rule(String name, List<String> block) {
        String expr = null;
        String severity = null;
        Map<String, String> annotations = new LinkedHashMap<>();
        for (int i = 0; i < block.size(); i++) {
            String line = block.get(i);
            Matcher e = EXPR.matcher(line);
            if (e.matches()) {
                String value = e.group(2).strip();
                if (value.equals(">-") || value.equals(">") || value.equals("|")) {
                    // A folded expression: every following line indented deeper than "expr:".
                    int indent = e.group(1).length();
                    StringBuilder folded = new StringBuilder();
                    while (i + 1 < block.size() && indentOf(block.get(i + 1)) > indent) {
                        folded.append(block.get(++i).strip()).append(' ');
                    }
                    value = folded.toString().strip();
                }
                expr = value;
            }
            Matcher s = SEVERITY.matcher(line);
            if (s.find()) {
                severity = s.group(1);
            }
            Matcher a = ANNOTATION.matcher(line);
            if (a.matches()) {
                annotations.put(a.group(1), a.group(2));
            }
        }
        if (expr == null || expr.isEmpty()) {
            throw new AssertionError("alert " + name + " has no expr this reader understands: keep it on the expr: "
                    + "line or folded below it with >-");
        }
        return new Rule(name, expr, severity, annotations.get("summary"), annotations.get("runbook"));
    }

    private static int indentOf(String line) {
        if (line.isBlank()) {
            return Integer.MAX_VALUE;
        }
        int n = 0;
        while (line.charAt(n) == ' ') {
            n++;
        }
        return n;
    }
}
