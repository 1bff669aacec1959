package dev.strait.mirror.http;

/** Label values in the Prometheus text exposition format (not JSON: only backslash, quote and newline escape). */
public final class PrometheusLabel {
    private PrometheusLabel() {}

    /** {@code s} escaped to sit between a label's double quotes. */
    public static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
