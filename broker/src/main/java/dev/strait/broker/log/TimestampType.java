package dev.strait.broker.log;

/** Topic config {@code message.timestamp.type}: whose clock the record timestamps come from. */
public enum TimestampType {
    /** The producer's timestamps are kept. */
    CREATE_TIME("CreateTime"),
    /** The broker overwrites each batch's maxTimestamp with its own clock at append. */
    LOG_APPEND_TIME("LogAppendTime");

    private final String configValue;

    TimestampType(String configValue) {
        this.configValue = configValue;
    }

    public String configValue() {
        return configValue;
    }

    public static TimestampType forConfigValue(String value) {
        for (TimestampType type : values()) {
            if (type.configValue.equals(value)) {
                return type;
            }
        }
        throw new IllegalArgumentException(
                "message.timestamp.type must be CreateTime or LogAppendTime, got '" + value + "'");
    }
}
