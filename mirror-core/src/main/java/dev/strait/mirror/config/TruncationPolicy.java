package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;

/** What a stream does when its committed position is no longer on the source log. */
public enum TruncationPolicy {
    /** Log how many records were lost and stop the stream (and the process) with an error. */
    FAIL,
    /** Log and count the lost records, alert through metrics, and continue from the earliest offset. */
    SKIP_AND_ALERT;

    public static TruncationPolicy parse(String text) {
        switch (text.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "fail":
                return FAIL;
            case "skip-and-alert":
            case "skip_and_alert":
                return SKIP_AND_ALERT;
            default:
                throw new ConfigException(
                        "--on.source.truncation must be 'fail' or 'skip-and-alert', not '" + text + "'");
        }
    }
}
