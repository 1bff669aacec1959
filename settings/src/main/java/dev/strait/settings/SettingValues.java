package dev.strait.settings;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A properties file parsed by its {@link SettingTable}: each setting's value in its type, the default where it was
 * not set, and the keys that are no setting. Read by the setting's constant, {@code get(NodeSettings.NODE_ID)},
 * which gives the value in the setting's own type. Immutable.
 */
public final class SettingValues {

    private final SettingTable table;

    /** By setting name; each value was parsed by its setting, so it is of that setting's type. */
    private final Map<String, Object> values;

    private final Set<String> given;
    private final List<String> unknown;

    SettingValues(SettingTable table, Map<String, Object> values, Set<String> given, List<String> unknown) {
        this.table = table;
        this.values = Map.copyOf(values);
        this.given = Set.copyOf(given);
        this.unknown = List.copyOf(unknown);
    }

    /** Whether the properties set {@code setting} (rather than leaving it to its default). */
    public boolean isSet(Setting<?> setting) {
        return given.contains(declared(setting).name());
    }

    /** The keys that are no setting of the table, in the order given. */
    public List<String> unknown() {
        return unknown;
    }

    /**
     * The value of a setting that is set or has a default.
     *
     * @throws IllegalStateException when it has neither, a bug in the caller: use {@link #find} for such settings
     */
    public <T> T get(Setting<T> setting) {
        return find(setting)
                .orElseThrow(() -> new IllegalStateException(
                        table.owner() + " setting " + setting.name() + " has no value and no default"));
    }

    /** The value of a setting, empty when it is unset and has no default. */
    public <T> Optional<T> find(Setting<T> setting) {
        return Optional.ofNullable(valueOf(declared(setting)));
    }

    /** The value stored for {@code setting}, which its own {@link Setting#parse} made, so it is a {@code T}. */
    @SuppressWarnings("unchecked")
    private <T> @Nullable T valueOf(Setting<T> setting) {
        return (T) values.get(setting.name());
    }

    /** {@code setting}, if the table declares it: any other is a bug here, not a missing value. */
    private <T> Setting<T> declared(Setting<T> setting) {
        if (!table.declares(setting)) {
            throw new IllegalArgumentException(table.owner() + " setting " + setting.name() + " is not the table's");
        }
        return setting;
    }
}
