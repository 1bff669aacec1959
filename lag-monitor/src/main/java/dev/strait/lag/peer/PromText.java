package dev.strait.lag.peer;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Samples read from Prometheus text exposition: enough to find a named series and its labels. Lines that are not
 * samples (comments, blanks, malformed) are skipped: a neighbour's newer metrics must not break the page. Immutable.
 */
public final class PromText {
    /** One sample: the metric name, its label text between the braces (may be empty), and its value. */
    public record Sample(String name, String labels, double value) {
        /** The value of label {@code key}, or null. Label values hold no quote in what Strait exports. */
        public @Nullable String label(String key) {
            String needle = key + "=\"";
            int i = labels.startsWith(needle) ? 0 : labels.indexOf("," + needle);
            if (i < 0) {
                return null;
            }
            int from = labels.indexOf('"', i) + 1;
            int to = labels.indexOf('"', from);
            return to < 0 ? null : labels.substring(from, to);
        }
    }

    private final List<Sample> samples;

    private PromText(List<Sample> samples) {
        this.samples = List.copyOf(samples);
    }

    public static PromText parse(String body) {
        List<Sample> out = new ArrayList<>();
        for (String raw : body.split("\n")) {
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            if (space <= 0) {
                continue;
            }
            String name;
            String labels = "";
            if (brace > 0 && brace < space) {
                int close = line.lastIndexOf('}');
                if (close < brace) {
                    continue;
                }
                name = line.substring(0, brace);
                labels = line.substring(brace + 1, close);
            } else {
                name = line.substring(0, space);
            }
            try {
                out.add(new Sample(name, labels, Double.parseDouble(line.substring(space + 1))));
            } catch (NumberFormatException e) {
                // Not a sample (or a value this page does not use): skipped.
            }
        }
        return new PromText(out);
    }

    /** The first sample named {@code name} whose labels contain {@code labelPart} ("" for any). */
    public @Nullable Sample first(String name, String labelPart) {
        for (Sample s : samples) {
            if (s.name().equals(name) && s.labels().contains(labelPart)) {
                return s;
            }
        }
        return null;
    }

    /** The value of the first such sample, or {@code otherwise}. */
    public double value(String name, String labelPart, double otherwise) {
        Sample s = first(name, labelPart);
        return s == null ? otherwise : s.value();
    }
}
