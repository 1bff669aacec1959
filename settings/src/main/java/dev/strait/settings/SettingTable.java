package dev.strait.settings;

import dev.strait.settings.Setting.Scope;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A module's settings, each declared once as a {@link Setting}: the one place that says what a properties file may
 * hold, from which the file is parsed and checked ({@link #parse}) and documented ({@link SettingsMarkdown}), so
 * that what is accepted and what is documented cannot drift apart. The checks here are per value (type, range,
 * allowed values, format); checks across settings are the config's that reads the values. Immutable.
 */
public final class SettingTable {

    private static final String LISTENER_PREFIX = "listener.name.";

    private final String owner;
    private final List<Setting<?>> all;
    private final Map<String, Setting<?>> byName;

    /**
     * @param owner whose settings these are, as messages name them ("broker": "no broker setting x")
     * @param settings every setting, in the order of the documentation
     * @throws IllegalArgumentException when two settings have the same name
     */
    public SettingTable(String owner, List<Setting<?>> settings) {
        this.owner = owner;
        this.all = List.copyOf(settings);
        Map<String, Setting<?>> names = new LinkedHashMap<>();
        for (Setting<?> setting : all) {
            if (names.put(setting.name(), setting) != null) {
                throw new IllegalArgumentException(owner + " setting " + setting.name() + " declared twice");
            }
        }
        this.byName = Collections.unmodifiableMap(names);
    }

    /** The settings of {@code groups}, one list after the other, as one list for {@link #SettingTable}. */
    @SafeVarargs
    public static List<Setting<?>> concat(List<Setting<?>>... groups) {
        List<Setting<?>> out = new ArrayList<>();
        for (List<Setting<?>> group : groups) {
            out.addAll(group);
        }
        return List.copyOf(out);
    }

    /** Whose settings these are, as messages name them ("broker"). */
    public String owner() {
        return owner;
    }

    /** Every setting, in the order of the documentation. */
    public List<Setting<?>> all() {
        return all;
    }

    /** The setting named {@code name} (its own name, not a listener's prefixed form). */
    public Setting<?> get(String name) {
        Setting<?> setting = byName.get(name);
        if (setting == null) {
            throw new IllegalArgumentException("no " + owner + " setting " + name);
        }
        return setting;
    }

    /** Whether {@code setting} is this table's own (not merely one of the same name). */
    public boolean declares(Setting<?> setting) {
        return byName.get(setting.name()) == setting;
    }

    /**
     * The setting {@code key} sets: the setting of that name, or for a per-listener setting the one that
     * {@code listener.name.<listener>.<name>} (or {@code listener.name.<listener>.<mechanism>.<name>}) overrides.
     */
    public Optional<Setting<?>> forKey(String key) {
        Setting<?> direct = byName.get(key);
        if (direct != null && direct.scope() != Scope.LISTENER_MECHANISM) {
            return Optional.of(direct);
        }
        if (!key.startsWith(LISTENER_PREFIX)) {
            return Optional.empty();
        }
        String rest = key.substring(LISTENER_PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
            return Optional.empty();
        }
        String afterListener = rest.substring(dot + 1);
        Setting<?> perListener = byName.get(afterListener);
        if (perListener != null && perListener.scope() == Scope.LISTENER) {
            return Optional.of(perListener);
        }
        int mechanismDot = afterListener.indexOf('.');
        if (mechanismDot > 0) {
            Setting<?> perMechanism = byName.get(afterListener.substring(mechanismDot + 1));
            if (perMechanism != null && perMechanism.scope() == Scope.LISTENER_MECHANISM) {
                return Optional.of(perMechanism);
            }
        }
        return Optional.empty();
    }

    /** Whether the value of {@code key} is secret; a key that is no setting counts as secret if it looks like one. */
    public boolean sensitive(String key) {
        Optional<Setting<?>> setting = forKey(key);
        if (setting.isPresent()) {
            return setting.get().sensitive();
        }
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.contains("password")
                || lower.contains("secret")
                || lower.contains("jaas")
                || lower.contains("credential")
                || lower.endsWith(".key");
    }

    /**
     * Parses and checks each value of {@code props} (types, ranges, allowed values, formats) and fills in the
     * defaults. Keys that are no setting are kept, in order, as {@link SettingValues#unknown()}.
     *
     * @throws ConfigException for the first bad value, naming its key
     */
    public SettingValues parse(Map<String, String> props) {
        Map<String, Object> values = new LinkedHashMap<>();
        Set<String> given = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, @Nullable String> entry : props.entrySet()) {
            String key = entry.getKey();
            Optional<Setting<?>> setting = forKey(key);
            if (setting.isEmpty()) {
                unknown.add(key);
                continue;
            }
            String raw = entry.getValue();
            if (raw == null) {
                throw new ConfigException("Missing value for configuration " + key);
            }
            Object value = setting.get().parse(key, raw);
            if (key.equals(setting.get().name())) {
                values.put(key, value);
                given.add(key);
            }
        }
        for (Setting<?> setting : all) {
            String fallback = setting.defaultValue();
            if (!values.containsKey(setting.name())
                    && fallback != null
                    && setting.scope() != Scope.LISTENER_MECHANISM) {
                values.put(setting.name(), setting.parse(setting.name(), fallback));
            }
        }
        return new SettingValues(this, values, given, unknown);
    }

    /**
     * {@link #parse(Map)} of a properties file, where a blank value (e.g. {@code alarm.threshold.ms=}) leaves the
     * setting to its default, as if the line were not there.
     */
    public SettingValues parse(Properties props) {
        Map<String, String> given = new LinkedHashMap<>();
        for (String name : new TreeSet<>(props.stringPropertyNames())) {
            String value = props.getProperty(name);
            if (value != null && !value.isBlank()) {
                given.put(name, value.trim());
            }
        }
        return parse(given);
    }

    /** The warning for a key that is no setting: one line, with the setting meant when that is clear. */
    public String unknownWarning(String key) {
        Setting<?> exact = byName.get(key);
        if (exact != null && exact.scope() == Scope.LISTENER_MECHANISM) {
            return "ignoring " + owner + " config '" + key + "': it is only read per listener and mechanism, as "
                    + "listener.name.<listener>.<mechanism>." + key;
        }
        String closest = null;
        int best = 3;
        for (String name : byName.keySet()) {
            int distance = distance(key, name, best);
            if (distance < best) {
                best = distance;
                closest = name;
            }
        }
        return "ignoring unknown " + owner + " config '" + key + "'"
                + (closest == null ? "" : "; did you mean '" + closest + "'?");
    }

    /** Levenshtein distance of {@code a} and {@code b}, or {@code limit} once it is known to be at least that. */
    private static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            int rowMin = current[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
                rowMin = Math.min(rowMin, current[j]);
            }
            if (rowMin >= limit) {
                return limit;
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return Math.min(previous[b.length()], limit);
    }
}
