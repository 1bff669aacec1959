package dev.strait.docker;

import java.util.ArrayList;
import java.util.List;

/** The samples of one metric in a Prometheus text exposition: each line's labels and value. */
final class PrometheusText {
    record Sample(String labels, double value) {}

    private PrometheusText() {}

    static List<Sample> samples(String text, String metric) {
        List<Sample> out = new ArrayList<>();
        if (text == null) {
            return out;
        }
        for (String line : text.split("\n")) {
            if (line.startsWith("#") || !line.startsWith(metric)) {
                continue;
            }
            String rest = line.substring(metric.length());
            String labels = "";
            if (rest.startsWith("{")) {
                int end = rest.indexOf('}');
                labels = rest.substring(1, end);
                rest = rest.substring(end + 1);
            } else if (!rest.startsWith(" ")) {
                continue; // another metric whose name starts with this one
            }
            out.add(new Sample(labels, Double.parseDouble(rest.trim())));
        }
        return out;
    }
}
