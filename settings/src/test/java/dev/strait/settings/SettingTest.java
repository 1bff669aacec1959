package dev.strait.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import java.util.Map;
import java.util.Properties;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.StringLength;

/**
 * A setting parses what its declaration allows back to itself and refuses anything else in one line naming the key;
 * a table fills in defaults, keeps unknown keys and hands out values only by its own constants.
 */
class SettingTest {

    private static final class Group {
        static final SettingGroup ONLY = new SettingGroup("Only", "The one group.");

        private Group() {}
    }

    private static final Setting<Integer> PORT =
            Setting.ofInt("port", "-1", Group.ONLY, "A port.").between(-1, 65535);
    private static final Setting<Long> DELAY_MS =
            Setting.ofLong("delay.ms", "1000", Group.ONLY, "A delay.").atLeast(1);
    private static final Setting<Double> RATIO =
            Setting.ofDouble("ratio", "0.5", Group.ONLY, "A ratio.").between(0, 1);
    private static final Setting<String> SERVERS = Setting.ofString("servers", "", Group.ONLY, "Servers.")
            .checked(v -> v.isEmpty() || v.contains(":") ? null : "not host:port")
            .allowedIs("host:port");
    private static final Setting<Boolean> ENABLED = Setting.ofBoolean("enabled", "false", Group.ONLY, "On or off.");
    private static final Setting<List<String>> MODES =
            Setting.ofList("modes", "", Group.ONLY, "Modes.").oneOf("read", "write");
    private static final Setting<String> LEVEL = Setting.ofString("level", "info", Group.ONLY, "A level.")
            .oneOf("info", "debug")
            .anyCase();
    private static final Setting<String> SECRET = Setting.ofPassword("secret", null, Group.ONLY, "A secret.")
            .checked(v -> v.length() >= 8 ? null : "too short");
    private static final Setting<String> NAME =
            Setting.ofString("name", null, Group.ONLY, "A name.").checked(v -> v.contains(" ") ? "no spaces" : null);

    private static final SettingTable TABLE =
            new SettingTable("test", List.of(PORT, DELAY_MS, RATIO, SERVERS, ENABLED, MODES, LEVEL, SECRET, NAME));

    @Example
    void eachRefinementOfASettingChangesOnlyWhatItNames() {
        Setting.Check<String> check = v -> null;
        Setting<String> base = Setting.ofString("x.y", "d", Group.ONLY, "Doc.");
        assertThat(base)
                .isEqualTo(new Setting<>(
                        "x.y",
                        Setting.Type.STRING,
                        "d",
                        null,
                        null,
                        null,
                        List.of(),
                        null,
                        false,
                        Setting.Scope.OWN_NAME,
                        Group.ONLY,
                        null,
                        null,
                        false,
                        "Doc."));
        Setting<String> refined = base.between(2, 9)
                .oneOf("a", "b")
                .anyCase()
                .in(Setting.Scope.LISTENER)
                .checked(check)
                .defaultIs("words")
                .allowedIs("a or b, in words")
                .set("a");
        assertThat(refined)
                .isEqualTo(new Setting<>(
                        "x.y",
                        Setting.Type.STRING,
                        "d",
                        "words",
                        2L,
                        9L,
                        List.of("a", "b"),
                        "a or b, in words",
                        true,
                        Setting.Scope.LISTENER,
                        Group.ONLY,
                        check,
                        "a",
                        true,
                        "Doc."));
        assertThat(refined.example("b"))
                .extracting(Setting::example, Setting::inExample, Setting::min)
                .containsExactly("b", false, 2L);
        assertThat(base.atLeast(1)).extracting(Setting::min, Setting::max).containsExactly(1L, null);
    }

    @Property
    void anyIntInRangeRoundTripsWhateverTheSpacing(
            @ForAll @IntRange(min = -1, max = 65535) int port, @ForAll @IntRange(min = 0, max = 3) int spaces) {
        String pad = " ".repeat(spaces);
        assertThat(PORT.parse("port", pad + port + pad)).isEqualTo(port);
        assertThat(TABLE.parse(Map.of("port", pad + port)).get(PORT)).isEqualTo(port);
    }

    @Property
    void anyIntOutOfRangeIsRefusedNamingTheKeyAndTheRange(@ForAll int port) {
        if (port >= -1 && port <= 65535) {
            return;
        }
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> PORT.parse("port", "" + port));
        assertThat(e).hasMessage("Invalid value " + port + " for configuration port: must be between -1 and 65535");
    }

    @Property
    void anyLongAtLeastTheBoundRoundTripsAndAnyBelowIsRefused(@ForAll @LongRange(min = -1000) long delay) {
        if (delay >= 1) {
            assertThat(DELAY_MS.parse("delay.ms", Long.toString(delay))).isEqualTo(delay);
        } else {
            assertThatThrownBy(() -> DELAY_MS.parse("delay.ms", Long.toString(delay)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("Invalid value " + delay + " for configuration delay.ms: must be >= 1");
        }
    }

    @Property
    void aWordIsNoNumber(@ForAll @AlphaChars @StringLength(min = 1, max = 10) String word) {
        assertThatThrownBy(() -> DELAY_MS.parse("delay.ms", word))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value " + word + " for configuration delay.ms: not a number");
    }

    @Property
    void aDoubleInItsRangeRoundTripsAndAnyOutsideIsRefused(@ForAll double ratio) {
        if (ratio >= 0 && ratio <= 1) {
            assertThat(RATIO.parse("ratio", Double.toString(ratio))).isEqualTo(ratio);
        } else {
            assertThatThrownBy(() -> RATIO.parse("ratio", Double.toString(ratio)))
                    .isInstanceOf(ConfigException.class)
                    .hasMessage("Invalid value " + ratio + " for configuration ratio: must be between 0 and 1");
        }
    }

    @Example
    void aDoubleRangeRefusesWhatIsNoNumberOrOutsideIt() {
        assertThat(RATIO.parse("ratio", " 1 ")).isEqualTo(1.0);
        assertThatThrownBy(() -> RATIO.parse("ratio", "NaN")).hasMessageEndingWith(": must be between 0 and 1");
        assertThatThrownBy(() -> RATIO.parse("ratio", "Infinity")).hasMessageEndingWith(": must be between 0 and 1");
        assertThatThrownBy(() -> RATIO.parse("ratio", "1.0000001")).hasMessageEndingWith(": must be between 0 and 1");
        assertThatThrownBy(() -> RATIO.parse("ratio", "half")).hasMessageEndingWith(": not a number");
    }

    @Property
    void booleansAreTrueOrFalseInAnyCase(@ForAll boolean value, @ForAll boolean upper) {
        String text = upper ? Boolean.toString(value).toUpperCase(java.util.Locale.ROOT) : Boolean.toString(value);
        assertThat(ENABLED.parse("enabled", text)).isEqualTo(value);
        assertThatThrownBy(() -> ENABLED.parse("enabled", "yes"))
                .hasMessage("Invalid value yes for configuration enabled: expected true or false");
    }

    @Example
    void listsAndChoicesAllowOnlyTheirValues() {
        assertThat(MODES.parse("modes", " read, ,write ")).containsExactly("read", "write");
        assertThat(MODES.parse("modes", "")).isEmpty();
        assertThatThrownBy(() -> MODES.parse("modes", "read,exec"))
                .hasMessage("Invalid value read,exec for configuration modes: exec is not allowed: expected a list of"
                        + " read or write");
        assertThat(LEVEL.parse("level", "DEBUG")).isEqualTo("DEBUG");
        assertThatThrownBy(() -> LEVEL.parse("level", "trace"))
                .hasMessage("Invalid value trace for configuration level: expected info or debug (any case)");
    }

    @Property
    void aSecretIsNeverShown(@ForAll @StringLength(min = 1, max = 7) String secret) {
        ConfigException e = catchThrowableOfType(ConfigException.class, () -> SECRET.parse("secret", secret));
        assertThat(e).hasMessage("Invalid value [hidden] for configuration secret: too short");
        assertThat(TABLE.sensitive("secret")).isTrue();
        assertThat(TABLE.sensitive("ssl.keystore.password"))
                .as("looks like a secret")
                .isTrue();
        assertThat(TABLE.sensitive("name")).isFalse();
    }

    @Example
    void aCheckRefusesWithItsReasonOnOneLine() {
        assertThatThrownBy(() -> NAME.parse("name", "a b\nc"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value a b\\nc for configuration name: no spaces");
        assertThat(NAME.parse("name", "ab")).isEqualTo("ab");
    }

    @Example
    void theTableFillsInDefaultsKeepsUnknownKeysAndHandsOutOnlyItsOwnSettings() {
        // Given
        Properties file = new Properties();
        file.setProperty("port", "9100");
        file.setProperty("delay.ms", "  ");
        file.setProperty("prot", "1");

        // When
        SettingValues values = TABLE.parse(file);

        // Then
        assertThat(values.get(PORT)).isEqualTo(9100);
        assertThat(values.isSet(PORT)).isTrue();
        assertThat(values.get(DELAY_MS)).as("a blank value is the default").isEqualTo(1000L);
        assertThat(values.isSet(DELAY_MS)).isFalse();
        assertThat(values.get(ENABLED)).isFalse();
        assertThat(values.find(NAME)).isEmpty();
        assertThat(values.unknown()).containsExactly("prot");
        assertThat(TABLE.unknownWarning("prot")).isEqualTo("ignoring unknown test config 'prot'; did you mean 'port'?");
        assertThatThrownBy(() -> values.get(NAME))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("test setting name has no value and no default");
        Setting<Integer> stranger = Setting.ofInt("port", "1", Group.ONLY, "Not the table's.");
        assertThatThrownBy(() -> values.get(stranger)).isInstanceOf(IllegalArgumentException.class);
    }

    @Example
    void aNameIsDeclaredOnce() {
        assertThatThrownBy(() -> new SettingTable("test", List.of(PORT, PORT)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("test setting port declared twice");
    }

    @Example
    void theDocumentationSaysWhatIsAllowed() {
        String markdown = SettingsMarkdown.tables(TABLE.all(), "###");
        assertThat(markdown)
                .startsWith("\n### Only\n\nThe one group.\n\n| Setting | Type | Default | Allowed | Description |")
                .contains("| `port` | int | `-1` | between -1 and 65535 | A port. |")
                .contains("| `ratio` | double | `0.5` | between 0 and 1 | A ratio. |")
                .contains("| `servers` | string | (empty) | host:port | Servers. |")
                .contains("| `secret` | password | none |  | A secret. |");
    }
}
