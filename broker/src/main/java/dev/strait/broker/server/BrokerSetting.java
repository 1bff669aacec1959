package dev.strait.broker.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One broker setting as {@link BrokerSettings} declares it: Kafka's name, its type, default, the values it
 * allows, the group it is documented in and one paragraph of documentation. It parses one value into its type
 * {@code T} ({@link Integer}, {@link Long}, {@link Double}, {@link Boolean}, {@link String} or a
 * {@code List<String>}), failing with a {@link ConfigException} that names the setting, the value (never a
 * password's) and what is allowed. The table declares each setting once as a constant of its Java type, so that
 * {@link BrokerConfig} reads a value as {@code values.get(TopicDefaultSettings.LOG_SEGMENT_BYTES)}: no name to
 * mistype and no cast to get wrong.
 *
 * @param <T> the Java type of a parsed value, fixed by {@code type} (see the factories {@link #ofInt} etc.)
 * @param defaultValue the default as it would be written in a file; null when there is none
 * @param defaultDoc how the documentation states the default when it is not a plain value (or null)
 * @param min the smallest number allowed (for DOUBLE, compared as a double); null for no bound
 * @param max the largest number allowed; null for the type's own bound
 * @param allowed the values a STRING or CLASS setting (or each element of a LIST) may take; empty for any
 * @param ignoreCase whether {@code allowed} is matched ignoring case (the value keeps its case)
 * @param check a further check of the parsed value (formats, unsupported values); null for none
 * @param example the value {@code config/broker.properties} shows (the default when null)
 * @param inExample whether {@code config/broker.properties} sets it (otherwise it is shown commented out)
 */
public record BrokerSetting<T>(
        String name,
        Type type,
        String defaultValue,
        String defaultDoc,
        Long min,
        Long max,
        List<String> allowed,
        boolean ignoreCase,
        Scope scope,
        BrokerSettings.Group group,
        Check<T> check,
        String example,
        boolean inExample,
        String doc) {

    /** Kafka's config types, as far as the broker uses them. */
    public enum Type {
        INT("int"),
        LONG("long"),
        DOUBLE("double"),
        BOOLEAN("boolean"),
        STRING("string"),
        LIST("list"),
        PASSWORD("password"),
        CLASS("class");

        private final String label;

        Type(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Where a setting may be given: once for the broker, or also per listener as Kafka's prefixes allow. */
    public enum Scope {
        BROKER,
        /** Also {@code listener.name.<listener>.<name>}, which overrides it on that listener. */
        LISTENER,
        /** Only as {@code listener.name.<listener>.<mechanism>.<name>} (a JAAS entry per listener and mechanism). */
        LISTENER_MECHANISM
    }

    /** A check of a parsed value beyond type, range and allowed values. */
    @FunctionalInterface
    public interface Check<T> {
        /** Why {@code value} is refused, or null if it is fine. */
        @Nullable
        String refusal(T value);
    }

    /** What a file or a message shows in place of a secret. */
    public static final String HIDDEN = "[hidden]";

    public BrokerSetting {
        allowed = List.copyOf(allowed);
    }

    /** An INT setting with {@code defaultValue} (null for none); refine it with the methods below. */
    static BrokerSetting<Integer> ofInt(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.INT, defaultValue, group, doc);
    }

    static BrokerSetting<Long> ofLong(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.LONG, defaultValue, group, doc);
    }

    static BrokerSetting<Double> ofDouble(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.DOUBLE, defaultValue, group, doc);
    }

    static BrokerSetting<Boolean> ofBoolean(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.BOOLEAN, defaultValue, group, doc);
    }

    static BrokerSetting<String> ofString(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.STRING, defaultValue, group, doc);
    }

    static BrokerSetting<String> ofPassword(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.PASSWORD, defaultValue, group, doc);
    }

    static BrokerSetting<String> ofClass(String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.CLASS, defaultValue, group, doc);
    }

    static BrokerSetting<List<String>> ofList(
            String name, String defaultValue, BrokerSettings.Group group, String doc) {
        return of(name, Type.LIST, defaultValue, group, doc);
    }

    /** Private so that only the factories above, each pairing a type with its Java type, choose {@code T}. */
    private static <T> BrokerSetting<T> of(
            String name, Type type, String defaultValue, BrokerSettings.Group group, String doc) {
        Draft<T> draft = new Draft<>();
        draft.name = name;
        draft.type = type;
        draft.defaultValue = defaultValue;
        draft.allowed = List.of();
        draft.scope = Scope.BROKER;
        draft.group = group;
        draft.doc = doc;
        return draft.build();
    }

    BrokerSetting<T> atLeast(long bound) {
        return with(d -> d.min = bound);
    }

    BrokerSetting<T> between(long low, long high) {
        return with(d -> {
            d.min = low;
            d.max = high;
        });
    }

    BrokerSetting<T> oneOf(String... values) {
        return with(d -> d.allowed = List.of(values));
    }

    BrokerSetting<T> anyCase() {
        return with(d -> d.ignoreCase = true);
    }

    BrokerSetting<T> in(Scope where) {
        return with(d -> d.scope = where);
    }

    BrokerSetting<T> checked(Check<T> further) {
        return with(d -> d.check = further);
    }

    /** Documents the default in words (e.g. "the first of log.dirs") where it is no plain value. */
    BrokerSetting<T> defaultIs(String words) {
        return with(d -> d.defaultDoc = words);
    }

    /** The value {@code config/broker.properties} shows, commented out. */
    BrokerSetting<T> example(String value) {
        return with(d -> {
            d.example = value;
            d.inExample = false;
        });
    }

    /** The value {@code config/broker.properties} sets. */
    BrokerSetting<T> set(String value) {
        return with(d -> {
            d.example = value;
            d.inExample = true;
        });
    }

    /** A copy of this setting with what {@code change} sets changed. */
    private BrokerSetting<T> with(Consumer<Draft<T>> change) {
        Draft<T> draft = new Draft<>();
        draft.name = name;
        draft.type = type;
        draft.defaultValue = defaultValue;
        draft.defaultDoc = defaultDoc;
        draft.min = min;
        draft.max = max;
        draft.allowed = allowed;
        draft.ignoreCase = ignoreCase;
        draft.scope = scope;
        draft.group = group;
        draft.check = check;
        draft.example = example;
        draft.inExample = inExample;
        draft.doc = doc;
        change.accept(draft);
        return draft.build();
    }

    /**
     * A setting's components while the table refines it, so that each refinement names only what it changes and
     * the table reads as a list of what is special about each setting.
     */
    private static final class Draft<T> {
        String name;
        Type type;
        String defaultValue;
        String defaultDoc;
        Long min;
        Long max;
        List<String> allowed;
        boolean ignoreCase;
        Scope scope;
        BrokerSettings.Group group;
        Check<T> check;
        String example;
        boolean inExample;
        String doc;

        BrokerSetting<T> build() {
            return new BrokerSetting<>(
                    name,
                    type,
                    defaultValue,
                    defaultDoc,
                    min,
                    max,
                    allowed,
                    ignoreCase,
                    scope,
                    group,
                    check,
                    example,
                    inExample,
                    doc);
        }
    }

    /** Whether values of this setting are secret: never logged, shown or put in a message. */
    public boolean sensitive() {
        return type == Type.PASSWORD;
    }

    /**
     * {@code value} as a message or a listing may show it: hidden when secret, and on one line (a properties file's
     * {@code \n} escape would otherwise break a refusal into two lines).
     */
    public String shown(String value) {
        if (sensitive()) {
            return HIDDEN;
        }
        StringBuilder out = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (Character.isISOControl(c)) {
                        out.append(String.format(java.util.Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    /**
     * The value of {@code key} (this setting's name, or a listener's prefixed form of it) parsed into this
     * setting's type; surrounding white space is ignored.
     *
     * @throws ConfigException naming {@code key}, the value and what is allowed
     */
    public T parse(String key, String raw) {
        String value = raw.trim();
        T parsed = typed(
                switch (type) {
                    case INT, LONG -> parseWhole(key, raw, value);
                    case DOUBLE -> parseDouble(key, raw, value);
                    case BOOLEAN -> parseBoolean(key, raw, value);
                    case STRING, CLASS, PASSWORD -> checkAllowed(key, raw, value);
                    case LIST -> parseList(key, raw, value);
                });
        if (check != null) {
            String refusal = check.refusal(parsed);
            if (refusal != null) {
                throw new ConfigException(key, shown(raw), refusal);
            }
        }
        return parsed;
    }

    /**
     * {@code value}, parsed as {@code type} says, as a {@code T}: the one unchecked cast of the table, safe because
     * only the factories ({@link #ofInt} etc.) make settings, each pairing a type with the Java type it parses to.
     */
    @SuppressWarnings("unchecked")
    private T typed(Object value) {
        return (T) value;
    }

    private Object parseWhole(String key, String raw, String value) {
        long parsed;
        try {
            parsed = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new ConfigException(key, shown(raw), "not a number");
        }
        long high = max != null ? max : type == Type.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
        if (min != null && parsed < min) {
            throw new ConfigException(key, shown(raw), "must be " + rangeText());
        }
        if (parsed > high) {
            throw new ConfigException(
                    key, shown(raw), "must be " + (min != null && max != null ? rangeText() : "<= " + high));
        }
        if (type == Type.INT) {
            return Integer.valueOf((int) parsed); // not a conditional expression: that would box both as Long
        }
        return Long.valueOf(parsed);
    }

    private Object parseDouble(String key, String raw, String value) {
        double parsed;
        try {
            parsed = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new ConfigException(key, shown(raw), "not a number");
        }
        if (Double.isNaN(parsed) || (min != null && parsed < min)) {
            throw new ConfigException(key, shown(raw), "must be " + rangeText());
        }
        return parsed;
    }

    private Object parseBoolean(String key, String raw, String value) {
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new ConfigException(key, shown(raw), "expected true or false");
    }

    private String checkAllowed(String key, String raw, String value) {
        if (!allowed.isEmpty() && !isAllowed(value)) {
            throw new ConfigException(key, shown(raw), "expected " + allowedText());
        }
        return value;
    }

    private List<String> parseList(String key, String raw, String value) {
        List<String> elements = new ArrayList<>();
        for (String part : value.split(",")) {
            String element = part.trim();
            if (element.isEmpty()) {
                continue;
            }
            if (!allowed.isEmpty() && !isAllowed(element)) {
                throw new ConfigException(
                        key, shown(raw), element + " is not allowed: expected a list of " + allowedText());
            }
            elements.add(element);
        }
        return List.copyOf(elements);
    }

    private boolean isAllowed(String value) {
        for (String candidate : allowed) {
            if (ignoreCase ? candidate.equalsIgnoreCase(value) : candidate.equals(value)) {
                return true;
            }
        }
        return false;
    }

    private String allowedText() {
        List<String> shownValues =
                allowed.stream().map(v -> v.isEmpty() ? "(empty)" : v).toList();
        if (shownValues.size() == 1) {
            return shownValues.get(0);
        }
        return String.join(", ", shownValues.subList(0, shownValues.size() - 1))
                + " or " + shownValues.get(shownValues.size() - 1)
                + (ignoreCase ? " (any case)" : "");
    }

    private String rangeText() {
        if (min != null && max != null) {
            return "between " + min + " and " + max;
        }
        if (min != null) {
            return ">= " + min;
        }
        return "<= " + max;
    }

    /** What values are allowed, in words, for the documentation ("" when any value of the type is). */
    public String allowedDoc() {
        if (min != null || max != null) {
            return rangeText();
        }
        if (!allowed.isEmpty()) {
            return allowedText();
        }
        return "";
    }

    /** The default as the documentation states it. */
    public String defaultDocText() {
        if (defaultDoc != null) {
            return defaultDoc;
        }
        if (defaultValue == null) {
            return "none";
        }
        return defaultValue.isEmpty() ? "(empty)" : defaultValue;
    }

    /** The key under which a listener overrides this setting, as Kafka spells it. */
    public String keyFor(String listener) {
        return "listener.name." + listener.toLowerCase(Locale.ROOT) + "." + name;
    }
}
