package dev.strait.settings;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One setting of a properties file as its module's table declares it: the name, its type, default, the values it
 * allows, the group it is documented in and one paragraph of documentation. It parses one value into its type
 * {@code T} ({@link Integer}, {@link Long}, {@link Double}, {@link Boolean}, {@link String} or a
 * {@code List<String>}), failing with a {@link ConfigException} that names the setting, the value (never a
 * password's) and what is allowed. A table declares each setting once as a constant of its Java type, so that a
 * config reads a value as {@code values.get(NodeSettings.NODE_ID)}: no name to mistype and no cast to get wrong.
 *
 * <p>Immutable: the factories ({@link #ofInt} etc.) make a setting, and each refinement ({@link #atLeast},
 * {@link #oneOf}, {@link #checked}...) returns a copy with only what it names changed, so that a table reads as a
 * list of what is special about each setting.
 *
 * @param <T> the Java type of a parsed value, fixed by {@code type} (see the factories {@link #ofInt} etc.)
 * @param defaultValue the default as it would be written in a file; null when there is none
 * @param defaultDoc how the documentation states the default when it is not a plain value (or null)
 * @param min the smallest number allowed (for DOUBLE, compared as a double); null for no bound
 * @param max the largest number allowed (for DOUBLE, compared as a double); null for the type's own bound
 * @param allowed the values a STRING or CLASS setting (or each element of a LIST) may take; empty for any
 * @param allowedWords how the documentation states what is allowed when a {@code check} decides it (a format, a
 *     range with a hole) and neither the range nor {@code allowed} says it; null to derive it from them
 * @param ignoreCase whether {@code allowed} is matched ignoring case (the value keeps its case)
 * @param check a further check of the parsed value (formats, unsupported values); null for none
 * @param example the value an example file shows (the default when null)
 * @param inExample whether an example file sets it (otherwise it is shown commented out)
 */
public record Setting<T>(
        String name,
        Type type,
        @Nullable String defaultValue,
        @Nullable String defaultDoc,
        @Nullable Long min,
        @Nullable Long max,
        List<String> allowed,
        @Nullable String allowedWords,
        boolean ignoreCase,
        Scope scope,
        SettingGroup group,
        @Nullable Check<T> check,
        @Nullable String example,
        boolean inExample,
        String doc) {

    /** Kafka's config types, as far as Strait uses them. */
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

    /** Where a setting may be given: under its own name only, or also per listener as Kafka's prefixes allow. */
    public enum Scope {
        /** Under its own name only: the default. */
        OWN_NAME,
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

    public Setting {
        allowed = List.copyOf(allowed);
    }

    /** An INT setting with {@code defaultValue} (null for none); refine it with the methods below. */
    public static Setting<Integer> ofInt(String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.INT, defaultValue, group, doc);
    }

    public static Setting<Long> ofLong(String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.LONG, defaultValue, group, doc);
    }

    public static Setting<Double> ofDouble(String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.DOUBLE, defaultValue, group, doc);
    }

    public static Setting<Boolean> ofBoolean(
            String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.BOOLEAN, defaultValue, group, doc);
    }

    public static Setting<String> ofString(String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.STRING, defaultValue, group, doc);
    }

    public static Setting<String> ofPassword(
            String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.PASSWORD, defaultValue, group, doc);
    }

    public static Setting<String> ofClass(String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.CLASS, defaultValue, group, doc);
    }

    public static Setting<List<String>> ofList(
            String name, @Nullable String defaultValue, SettingGroup group, String doc) {
        return of(name, Type.LIST, defaultValue, group, doc);
    }

    /** Private so that only the factories above, each pairing a type with its Java type, choose {@code T}. */
    private static <T> Setting<T> of(
            String name, Type type, @Nullable String defaultValue, SettingGroup group, String doc) {
        return new Setting<>(
                name,
                type,
                defaultValue,
                null,
                null,
                null,
                List.of(),
                null,
                false,
                Scope.OWN_NAME,
                group,
                null,
                null,
                false,
                doc);
    }

    public Setting<T> atLeast(long bound) {
        return with(d -> d.min = bound);
    }

    public Setting<T> between(long low, long high) {
        return with(d -> {
            d.min = low;
            d.max = high;
        });
    }

    public Setting<T> oneOf(String... values) {
        return with(d -> d.allowed = List.of(values));
    }

    public Setting<T> anyCase() {
        return with(d -> d.ignoreCase = true);
    }

    public Setting<T> in(Scope where) {
        return with(d -> d.scope = where);
    }

    public Setting<T> checked(Check<T> further) {
        return with(d -> d.check = further);
    }

    /**
     * Documents what is allowed in words (e.g. "host:port,...") where a {@link #checked check} decides it and the
     * range or {@link #oneOf} values would not say it.
     */
    public Setting<T> allowedIs(String words) {
        return with(d -> d.allowedWords = words);
    }

    /** Documents the default in words (e.g. "the first of log.dirs") where it is no plain value. */
    public Setting<T> defaultIs(String words) {
        return with(d -> d.defaultDoc = words);
    }

    /** The value an example file shows, commented out. */
    public Setting<T> example(String value) {
        return with(d -> {
            d.example = value;
            d.inExample = false;
        });
    }

    /** The value an example file sets. */
    public Setting<T> set(String value) {
        return with(d -> {
            d.example = value;
            d.inExample = true;
        });
    }

    /** A copy of this setting with what {@code change} sets changed. */
    private Setting<T> with(Consumer<Draft<T>> change) {
        Draft<T> draft = new Draft<>(this);
        change.accept(draft);
        return draft.build();
    }

    /** A setting's components while a refinement changes some of them. */
    private static final class Draft<T> {
        final String name;
        final Type type;
        final @Nullable String defaultValue;

        @Nullable
        String defaultDoc;

        @Nullable
        Long min;

        @Nullable
        Long max;

        List<String> allowed;

        @Nullable
        String allowedWords;

        boolean ignoreCase;
        Scope scope;
        final SettingGroup group;

        @Nullable
        Check<T> check;

        @Nullable
        String example;

        boolean inExample;
        final String doc;

        Draft(Setting<T> from) {
            name = from.name;
            type = from.type;
            defaultValue = from.defaultValue;
            defaultDoc = from.defaultDoc;
            min = from.min;
            max = from.max;
            allowed = from.allowed;
            allowedWords = from.allowedWords;
            ignoreCase = from.ignoreCase;
            scope = from.scope;
            group = from.group;
            check = from.check;
            example = from.example;
            inExample = from.inExample;
            doc = from.doc;
        }

        Setting<T> build() {
            return new Setting<>(
                    name,
                    type,
                    defaultValue,
                    defaultDoc,
                    min,
                    max,
                    allowed,
                    allowedWords,
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
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
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
        if (Double.isNaN(parsed) || (min != null && parsed < min) || (max != null && parsed > max)) {
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
        if (allowedWords != null) {
            return allowedWords;
        }
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
