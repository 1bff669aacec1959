package dev.strait.broker.metrics;

/**
 * Writes Prometheus' text exposition format (version 0.0.4): each family's HELP and TYPE lines, then its
 * samples. Label values and help texts are escaped as the format requires. Not thread-safe: one per scrape.
 */
public final class PrometheusText {

    private final StringBuilder out = new StringBuilder();

    /** Starts a family: {@code type} is counter, gauge, histogram, summary or untyped. */
    public PrometheusText family(String name, String type, String help) {
        out.append("# HELP ")
                .append(name)
                .append(' ')
                .append(help.replace("\\", "\\\\").replace("\n", "\\n"))
                .append('\n');
        out.append("# TYPE ").append(name).append(' ').append(type).append('\n');
        return this;
    }

    /** One sample; {@code labels} are name, value pairs. */
    public PrometheusText sample(String name, double value, String... labels) {
        if (labels.length % 2 != 0) {
            throw new IllegalArgumentException("labels come in name, value pairs: " + String.join(",", labels));
        }
        out.append(name);
        if (labels.length > 0) {
            out.append('{');
            for (int i = 0; i < labels.length; i += 2) {
                if (i > 0) {
                    out.append(',');
                }
                out.append(labels[i])
                        .append("=\"")
                        .append(escapeLabel(labels[i + 1]))
                        .append('"');
            }
            out.append('}');
        }
        out.append(' ').append(format(value)).append('\n');
        return this;
    }

    /** A family with one unlabelled sample. */
    public PrometheusText single(String name, String type, String help, double value) {
        return family(name, type, help).sample(name, value);
    }

    static String escapeLabel(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }

    /** Whole numbers without a fraction (counters read as counts), the rest in plain decimal digits. */
    static String format(double value) {
        if (Double.isNaN(value)) {
            return "NaN";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "+Inf" : "-Inf";
        }
        if (value == Math.rint(value) && Math.abs(value) < 1e15) {
            return Long.toString((long) value);
        }
        // Plain digits (0.0005, not 5.0E-4): bucket bounds are label values, matched as text by queries.
        return java.math.BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
