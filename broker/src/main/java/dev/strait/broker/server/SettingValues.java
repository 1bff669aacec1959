package dev.strait.broker.server;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A node's settings parsed by {@link BrokerSettings}: each setting's value in its type, the default where it was
 * not set, and the keys that are no setting. Immutable.
 */
final class SettingValues {

    private final Map<String, Object> values;
    private final Set<String> given;
    private final List<String> unknown;

    SettingValues(Map<String, Object> values, Set<String> given, List<String> unknown) {
        this.values = Map.copyOf(values);
        this.given = Set.copyOf(given);
        this.unknown = List.copyOf(unknown);
    }

    /** Whether the properties set {@code name} (rather than leaving it to its default). */
    boolean isSet(String name) {
        return given.contains(name);
    }

    /** The keys that are no broker setting, in the order given. */
    List<String> unknown() {
        return unknown;
    }

    int intValue(String name) {
        return (Integer) required(name);
    }

    long longValue(String name) {
        return (Long) required(name);
    }

    boolean booleanValue(String name) {
        return (Boolean) required(name);
    }

    /** The value of a DOUBLE setting, or null when it is unset and has no default. */
    Double doubleValue(String name) {
        return (Double) value(name);
    }

    /** The value of a STRING, CLASS or PASSWORD setting, or null when it is unset and has no default. */
    String stringValue(String name) {
        return (String) value(name);
    }

    /** The elements of a LIST setting, or null when it is unset and has no default. */
    @SuppressWarnings("unchecked")
    List<String> listValue(String name) {
        return (List<String>) value(name);
    }

    private Object value(String name) {
        BrokerSettings.get(name); // a name the table does not declare is a bug here, not a missing value
        return values.get(name);
    }

    private Object required(String name) {
        Object value = value(name);
        if (value == null) {
            throw new IllegalStateException("broker setting " + name + " has no value and no default");
        }
        return value;
    }
}
