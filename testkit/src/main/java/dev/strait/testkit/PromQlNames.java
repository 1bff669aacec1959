package dev.strait.testkit;

import java.util.Set;
import java.util.TreeSet;

/**
 * The metric names a PromQL expression selects: every identifier that is not a function or aggregation (followed
 * by "("), an aggregation operator, a keyword, a label name (inside {@code {...}} or a by/without/on/ignoring/group_left/group_right list),
 * a duration (inside {@code [...]}) or part of a string. Enough for alerting rules and dashboard panels; not a
 * PromQL parser. Shared by the checks that read docker/prometheus/alerts.yml and dashboards/ (mirror-cli's
 * AlertRulesTest and DashboardsTest, docker's stack with Prometheus). Stateless.
 */
public final class PromQlNames {
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "inf", "nan");
    /** Aggregation operators: followed by "(" or by a by/without list, so they may not be followed by "(" at once. */
    private static final Set<String> AGGREGATIONS = Set.of(
            "sum",
            "min",
            "max",
            "avg",
            "group",
            "stddev",
            "stdvar",
            "count",
            "count_values",
            "bottomk",
            "topk",
            "quantile");

    private static final Set<String> LABEL_LISTS =
            Set.of("by", "without", "on", "ignoring", "group_left", "group_right");

    private PromQlNames() {}

    public static Set<String> of(String expr) {
        String s = blankOut(expr);
        Set<String> names = new TreeSet<>();
        int i = 0;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (Character.isDigit(c) || c == '.') {
                // A number (1, 0.5, 1e3): skip it whole, so "1e3" is not read as the name "e3".
                while (i < s.length() && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                    i++;
                }
                continue;
            }
            if (!isNameStart(c)) {
                i++;
                continue;
            }
            int start = i;
            while (i < s.length() && isNamePart(s.charAt(i))) {
                i++;
            }
            String word = s.substring(start, i);
            int next = i;
            while (next < s.length() && s.charAt(next) == ' ') {
                next++;
            }
            boolean call = next < s.length() && s.charAt(next) == '(';
            if (LABEL_LISTS.contains(word)) {
                i = call ? skipParentheses(s, next) : i;
            } else if (!call && !KEYWORDS.contains(word) && !AGGREGATIONS.contains(word)) {
                names.add(word);
            }
        }
        return names;
    }

    /** The expression with strings, label matchers and range durations replaced by spaces. */
    private static String blankOut(String expr) {
        StringBuilder b = new StringBuilder(expr.length());
        char closing = 0;
        char quote = 0;
        for (int i = 0; i < expr.length(); i++) {
            char c = expr.charAt(i);
            if (quote != 0) {
                if (c == '\\') {
                    i++;
                } else if (c == quote) {
                    quote = 0;
                }
                b.append(' ');
            } else if (c == '"' || c == '\'' || c == '`') {
                quote = c;
                b.append(' ');
            } else if (closing != 0) {
                closing = c == closing ? 0 : closing;
                b.append(' ');
            } else if (c == '{' || c == '[') {
                closing = c == '{' ? '}' : ']';
                b.append(' ');
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static int skipParentheses(String s, int open) {
        int depth = 0;
        for (int i = open; i < s.length(); i++) {
            if (s.charAt(i) == '(') {
                depth++;
            } else if (s.charAt(i) == ')' && --depth == 0) {
                return i + 1;
            }
        }
        return s.length();
    }

    private static boolean isNameStart(char c) {
        return Character.isLetter(c) || c == '_' || c == ':';
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || Character.isDigit(c);
    }
}
