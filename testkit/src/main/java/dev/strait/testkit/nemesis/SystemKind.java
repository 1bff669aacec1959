package dev.strait.testkit.nemesis;

import java.util.Locale;

/** The cluster the nemesis runs against: Strait's companion broker, or Apache Kafka 4.1.1 as the reference. */
public enum SystemKind {
    STRAIT("Strait companion broker"),
    KAFKA("Apache Kafka 4.1.1");

    private final String label;

    SystemKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code strait} or {@code kafka}; anything else is a one-line error. */
    public static SystemKind parse(String value) {
        for (SystemKind kind : values()) {
            if (kind.flag().equals(value.trim().toLowerCase(Locale.ROOT))) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown system '" + value + "': expected strait or kafka");
    }
}
