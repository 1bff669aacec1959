package dev.strait.bench;

import java.util.Locale;

/** How the broker and cluster reports write a measured number and a failure. */
final class ReportText {
    private ReportText() {}

    /** A table cell: {@code -} when not measured, whole and large numbers with grouping, others to 2 decimals. */
    static String number(Double v) {
        if (v == null) {
            return "-";
        }
        return v == Math.rint(v) || Math.abs(v) >= 100
                ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    /** A failure as one line: the exception's simple class name and message. */
    static String oneLine(Exception e) {
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        return e.getClass().getSimpleName() + ": " + msg;
    }
}
