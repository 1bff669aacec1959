package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import dev.strait.settings.Setting.Type;
import dev.strait.settings.SettingValues;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The settings table against a plain reading of each setting's declaration: for every INT, LONG, BOOLEAN and LIST
 * setting, any value it allows, written as text (any spacing, any case where case does not matter), parses back to
 * that value, alone and through {@link BrokerSettings#parse}; any value outside its range, type or choices is refused
 * with one line naming the key; keys that are no setting are kept, in order, as unknown, whatever their value.
 */
class BrokerSettingsPropertyTest {

    /** A setting and a text for it, with the value the text stands for (null when it must be refused). */
    record Case(Setting<?> setting, String text, Object value) {}

    @Property(tries = 500)
    void anyAllowedValueParsesBackToItself(@ForAll("allowed") Case c) {
        // When
        Object alone = c.setting().parse(c.setting().name(), c.text());
        SettingValues values = BrokerSettings.parse(Map.of(c.setting().name(), c.text()));

        // Then
        assertThat(alone).as("%s = '%s'", c.setting().name(), c.text()).isEqualTo(c.value());
        assertThat(found(values, c.setting())).as(c.setting().name()).isEqualTo(c.value());
        assertThat(values.isSet(c.setting())).isTrue();
    }

    @Property(tries = 500)
    void anyValueOutsideTheDeclarationIsRefusedInOneLineNamingTheKey(@ForAll("refused") Case c) {
        // When
        ConfigException alone = catchThrowableOfType(
                ConfigException.class, () -> c.setting().parse(c.setting().name(), c.text()));
        ConfigException whole = catchThrowableOfType(
                ConfigException.class,
                () -> BrokerSettings.parse(Map.of(c.setting().name(), c.text())));

        // Then
        assertThat(alone)
                .as("%s = '%s' is refused", c.setting().name(), c.text())
                .isNotNull();
        assertThat(whole)
                .as("%s = '%s' is refused by the table", c.setting().name(), c.text())
                .isNotNull();
        for (ConfigException e : List.of(alone, whole)) {
            assertThat(e.getMessage())
                    .contains("configuration " + c.setting().name() + ":")
                    .doesNotContain("\n");
        }
    }

    @Property(tries = 300)
    void keysThatAreNoSettingAreListedInOrderWhateverTheirValue(
            @ForAll("unknownKeys") List<String> keys, @ForAll("allowed") Case known) {
        // Given: unknown keys with values no setting would take, around one setting
        Map<String, String> props = new LinkedHashMap<>();
        keys.forEach(k -> props.put(k, "\u0000 not a value"));
        props.put(known.setting().name(), known.text());

        // When
        SettingValues values = BrokerSettings.parse(props);

        // Then
        assertThat(values.unknown()).containsExactlyElementsOf(keys);
        assertThat(found(values, known.setting())).isEqualTo(known.value());
        for (String key : keys) {
            assertThat(BrokerSettings.unknownWarning(key))
                    .contains("'" + key + "'")
                    .doesNotContain("\n");
        }
    }

    private static Object found(SettingValues values, Setting<?> setting) {
        return values.find(setting).orElse(null);
    }

    /** The settings whose declaration the oracle reads: the four types, without a further check. */
    private static List<Setting<?>> settings() {
        List<Setting<?>> out = new ArrayList<>();
        for (Setting<?> s : BrokerSettings.all()) {
            boolean typed =
                    s.type() == Type.INT || s.type() == Type.LONG || s.type() == Type.BOOLEAN || s.type() == Type.LIST;
            if (typed && s.check() == null && s.scope() != Setting.Scope.LISTENER_MECHANISM) {
                out.add(s);
            }
        }
        return out;
    }

    private static long low(Setting<?> s) {
        return s.min() != null ? s.min() : s.type() == Type.INT ? Integer.MIN_VALUE : Long.MIN_VALUE;
    }

    private static long high(Setting<?> s) {
        return s.max() != null ? s.max() : s.type() == Type.INT ? Integer.MAX_VALUE : Long.MAX_VALUE;
    }

    @Provide
    Arbitrary<Case> allowed() {
        return Arbitraries.of(settings()).flatMap(s -> switch (s.type()) {
            case INT, LONG ->
                Arbitraries.longs()
                        .between(low(s), high(s))
                        .edgeCases(e -> e.add(low(s)).add(high(s)))
                        .flatMap(v -> spaced(Long.toString(v))
                                .map(t -> new Case(s, t, s.type() == Type.INT ? (Object) v.intValue() : (Object) v)));
            case BOOLEAN ->
                Arbitraries.of(true, false)
                        .flatMap(v -> anyCase(Boolean.toString(v))
                                .flatMap(this::spaced)
                                .map(t -> new Case(s, t, v)));
            default -> list(s);
        });
    }

    /** A LIST setting's value: elements from its choices (in any case where allowed) or any tokens. */
    private Arbitrary<Case> list(Setting<?> s) {
        Arbitrary<String> element = s.allowed().isEmpty()
                ? Arbitraries.strings()
                        .withCharRange('a', 'z')
                        .withChars("._:-/0123456789")
                        .ofMinLength(1)
                        .ofMaxLength(12)
                : Arbitraries.of(s.allowed())
                        .filter(a -> !a.isEmpty())
                        .flatMap(a -> s.ignoreCase() ? anyCase(a) : Arbitraries.just(a));
        return element.list()
                .ofMaxSize(4)
                .flatMap(elements -> Arbitraries.integers().between(0, 2).map(spaces -> {
                    String sep = "," + " ".repeat(spaces);
                    return new Case(s, String.join(sep, elements), List.copyOf(elements));
                }));
    }

    @Provide
    Arbitrary<Case> refused() {
        return Arbitraries.of(settings()).flatMap(s -> switch (s.type()) {
            case INT, LONG -> outOfRange(s);
            case BOOLEAN ->
                Arbitraries.strings()
                        .withCharRange(' ', '~')
                        .ofMaxLength(8)
                        .filter(t ->
                                !t.trim().equalsIgnoreCase("true") && !t.trim().equalsIgnoreCase("false"))
                        .map(t -> new Case(s, t, null));
            default -> notAChoice(s);
        });
    }

    /** A number below the minimum or above the maximum, or text that is no number. */
    private static Arbitrary<Case> outOfRange(Setting<?> s) {
        List<Arbitrary<String>> texts = new ArrayList<>();
        texts.add(Arbitraries.strings().alpha().ofMinLength(1).ofMaxLength(6));
        texts.add(Arbitraries.just(""));
        if (low(s) > Long.MIN_VALUE) {
            texts.add(Arbitraries.longs().between(Long.MIN_VALUE, low(s) - 1).map(v -> Long.toString(v)));
        }
        if (high(s) < Long.MAX_VALUE) {
            texts.add(Arbitraries.longs().between(high(s) + 1, Long.MAX_VALUE).map(v -> Long.toString(v)));
        }
        texts.add(Arbitraries.just("9223372036854775808"));
        return Arbitraries.oneOf(texts).map(t -> new Case(s, t, null));
    }

    /** For a LIST setting with choices, a list holding one element that is none of them. */
    private static Arbitrary<Case> notAChoice(Setting<?> s) {
        if (s.allowed().isEmpty()) {
            // Any list is allowed: fall back to a number setting's refusal, so every try still checks one.
            return Arbitraries.of(settings())
                    .filter(o -> o.type() == Type.INT || o.type() == Type.LONG)
                    .flatMap(BrokerSettingsPropertyTest::outOfRange);
        }
        return Arbitraries.strings()
                .alpha()
                .ofMinLength(1)
                .ofMaxLength(10)
                .filter(e -> s.allowed().stream().noneMatch(a -> s.ignoreCase() ? a.equalsIgnoreCase(e) : a.equals(e)))
                .flatMap(bad -> Arbitraries.of(s.allowed())
                        .filter(a -> !a.isEmpty())
                        .list()
                        .ofMaxSize(2)
                        .map(good -> {
                            List<String> elements = new ArrayList<>(good);
                            elements.add(bad);
                            return new Case(s, String.join(",", elements), null);
                        }));
    }

    @Provide
    Arbitrary<List<String>> unknownKeys() {
        Arbitrary<String> key = Combinators.combine(
                        Arbitraries.of("strait.", "x.", "listener.name.", "log.", ""),
                        Arbitraries.strings()
                                .withCharRange('a', 'z')
                                .withChars(".-_")
                                .ofMinLength(1)
                                .ofMaxLength(20))
                .as((prefix, rest) -> prefix + rest)
                .filter(k -> BrokerSettings.forKey(k).isEmpty());
        return key.list().uniqueElements().ofMaxSize(5);
    }

    /** {@code text} with spaces or tabs around it (which a value may have in a properties file). */
    private Arbitrary<String> spaced(String text) {
        Arbitrary<String> pad = Arbitraries.of("", "", " ", "\t", "  ");
        return Combinators.combine(pad, pad).as((a, b) -> a + text + b);
    }

    /** {@code text} with each letter in either case. */
    private static Arbitrary<String> anyCase(String text) {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE).map(bits -> {
            StringBuilder out = new StringBuilder();
            for (int i = 0; i < text.length(); i++) {
                String ch = text.substring(i, i + 1);
                out.append((bits >> (i % 31) & 1) == 1 ? ch.toUpperCase(Locale.ROOT) : ch.toLowerCase(Locale.ROOT));
            }
            return out.toString();
        });
    }
}
