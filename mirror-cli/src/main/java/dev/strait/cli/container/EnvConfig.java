package dev.strait.cli.container;

import dev.strait.settings.ConfigException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Configuration from environment variables, for the container image: {@code STRAIT_CONSUMER_BOOTSTRAP_SERVERS=a:9092}
 * is {@code bootstrap.servers=a:9092} in the mirror's consumer properties.
 *
 * <p>A variable is a group prefix ({@link Group}) followed by the setting's name, written the way
 * confluentinc/cp-kafka and Strimzi images write Kafka settings: upper case, {@code _} for {@code .},
 * {@code __} for {@code _} and {@code ___} for {@code -}. So {@code STRAIT_LAG_SOURCE_SASL_JAAS_CONFIG} is
 * {@code source.sasl.jaas.config}, {@code STRAIT_BROKER_LOG_DIRS} is {@code log.dirs}, and
 * {@code STRAIT_MIRROR_NUM_STREAMS} is the mirror's flag {@code --num.streams}. An empty value counts as unset.
 *
 * <p>Every {@code STRAIT_*} variable is checked, whichever role runs: a name that is not a group prefix, not
 * one of the launcher's own variables ({@link #LAUNCHER_VARIABLES}) and not well formed is bad input, reported in
 * one line that names the variable and the fix. Kubernetes service links ({@code STRAIT_MIRROR_SERVICE_HOST} and the
 * like, {@link #isServiceLink}) are ignored. Immutable; the environment is passed in, never read here.
 */
public final class EnvConfig {

    /** Where a variable's setting goes. */
    public enum Group {
        CONSUMER("STRAIT_CONSUMER_", "the mirror's consumer properties (source cluster)"),
        PRODUCER("STRAIT_PRODUCER_", "the mirror's producer properties (target cluster)"),
        MIRROR("STRAIT_MIRROR_", "a flag of the mirror command"),
        LAG("STRAIT_LAG_", "lag-monitor.properties"),
        CANARY("STRAIT_CANARY_", "canary.properties"),
        BROKER("STRAIT_BROKER_", "the broker's server.properties");

        private final String prefix;
        private final String target;

        Group(String prefix, String target) {
            this.prefix = prefix;
            this.target = target;
        }

        public String prefix() {
            return prefix;
        }

        /** What the group's settings configure, for messages and documentation. */
        public String target() {
            return target;
        }
    }

    /** One setting taken from the environment: the variable, the setting name it stands for, and its value. */
    public record Setting(String variable, String key, String value) {}

    /**
     * Variables read by the launcher itself (docker/entrypoint.sh, {@link ContainerMain}, bin/strait and the
     * logging configuration), not mapped to settings.
     */
    public static final Set<String> LAUNCHER_VARIABLES = Set.of(
            "STRAIT_HOME",
            "STRAIT_HEAP_OPTS",
            "STRAIT_JAVA_OPTS",
            "STRAIT_CLASSPATH",
            "STRAIT_LOG_LEVEL",
            "STRAIT_KAFKA_LOG_LEVEL",
            "STRAIT_REBUILD",
            "STRAIT_MAIN",
            "STRAIT_RUN_DIR",
            "STRAIT_DATA_DIR",
            "STRAIT_DRY_RUN",
            "STRAIT_MIRROR_ARGS",
            "STRAIT_HEALTH_TIMEOUT_S");

    private static final String RULE = "upper case, _ for '.', __ for '_', ___ for '-'";
    /** Kubernetes service link variables ({@link #isServiceLink}). */
    private static final Pattern SERVICE_LINK = Pattern.compile(
            "STRAIT(_[A-Z0-9_]+)?_(SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT_\\d+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)");

    private static final Pattern SERVICE_LINK_URL = Pattern.compile("(tcp|udp|sctp)://[^\\s]+:\\d+");

    private final Map<Group, List<Setting>> settings;
    private final Map<String, String> launcher;

    private EnvConfig(Map<Group, List<Setting>> settings, Map<String, String> launcher) {
        this.settings = settings;
        this.launcher = launcher;
    }

    /**
     * Reads the {@code STRAIT_*} variables of {@code env}; other variables are ignored.
     *
     * @throws ConfigException naming the first bad variable (in name order) and how to write it
     */
    public static EnvConfig from(Map<String, String> env) {
        Map<Group, List<Setting>> byGroup = new EnumMap<>(Group.class);
        for (Group g : Group.values()) {
            byGroup.put(g, new ArrayList<>());
        }
        Map<String, String> launcher = new TreeMap<>();
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            String name = e.getKey();
            if (!name.toUpperCase(Locale.ROOT).startsWith("STRAIT_")) {
                continue;
            }
            if (isServiceLink(name, e.getValue())) {
                continue;
            }
            if (LAUNCHER_VARIABLES.contains(name)) {
                launcher.put(name, e.getValue());
                continue;
            }
            Group group = groupOf(name);
            if (group == null) {
                throw new ConfigException("environment variable " + name + " is not a Strait variable: settings go in "
                        + prefixes() + "; the launcher's own are " + String.join(", ", sortedLauncherVariables()));
            }
            String key = keyOf(name, name.substring(group.prefix().length()));
            if (e.getValue() == null || e.getValue().isEmpty()) {
                continue;
            }
            Objects.requireNonNull(byGroup.get(group), () -> "no settings list for " + group)
                    .add(new Setting(name, key, e.getValue()));
        }
        Map<Group, List<Setting>> frozen = new EnumMap<>(Group.class);
        byGroup.forEach((g, list) -> frozen.put(g, List.copyOf(list)));
        return new EnvConfig(frozen, launcher);
    }

    private static @Nullable Group groupOf(String name) {
        for (Group g : Group.values()) {
            if (name.startsWith(g.prefix())) {
                return g;
            }
        }
        return null;
    }

    /**
     * Kubernetes injects service links into every pod of a namespace (unless {@code enableServiceLinks: false}):
     * a Service named {@code strait-mirror} gives {@code STRAIT_MIRROR_SERVICE_HOST}, {@code STRAIT_MIRROR_PORT=tcp://…}
     * and {@code STRAIT_MIRROR_PORT_9101_TCP_ADDR}. They are not settings, and refusing them would stop the pod.
     */
    static boolean isServiceLink(String name, String value) {
        if (SERVICE_LINK.matcher(name).matches()) {
            return true;
        }
        return name.endsWith("_PORT")
                && value != null
                && SERVICE_LINK_URL.matcher(value).matches();
    }

    private static List<String> sortedLauncherVariables() {
        List<String> names = new ArrayList<>(LAUNCHER_VARIABLES);
        names.sort(null);
        return names;
    }

    private static String prefixes() {
        List<String> out = new ArrayList<>();
        for (Group g : Group.values()) {
            out.add(g.prefix() + "*");
        }
        return String.join(", ", out);
    }

    /**
     * The setting name a variable's suffix stands for: {@code BOOTSTRAP_SERVERS} is {@code bootstrap.servers},
     * {@code A__B} is {@code a_b}, {@code A___B} is {@code a-b}.
     *
     * @throws ConfigException when the suffix is empty, has lower-case letters or other characters, starts or
     *     ends with an underscore, or has four or more underscores in a row
     */
    static String keyOf(String variable, String suffix) {
        if (suffix.isEmpty()) {
            throw bad(variable, "names no setting after the prefix");
        }
        StringBuilder key = new StringBuilder(suffix.length());
        int i = 0;
        while (i < suffix.length()) {
            char c = suffix.charAt(i);
            if (c == '_') {
                int run = 0;
                while (i < suffix.length() && suffix.charAt(i) == '_') {
                    run++;
                    i++;
                }
                if (key.length() == 0 || i == suffix.length()) {
                    throw bad(variable, "the setting name may not start or end with an underscore");
                }
                if (run > 3) {
                    throw bad(variable, run + " underscores in a row; write names " + RULE);
                }
                key.append(run == 1 ? '.' : run == 2 ? '_' : '-');
                continue;
            }
            if (c >= 'A' && c <= 'Z') {
                key.append(Character.toLowerCase(c));
            } else if (c >= '0' && c <= '9') {
                key.append(c);
            } else if (c >= 'a' && c <= 'z') {
                throw bad(
                        variable,
                        "has lower-case letters; write names " + RULE + ", e.g. "
                                + variableOf(Group.CONSUMER, "bootstrap.servers") + " for bootstrap.servers");
            } else {
                throw bad(variable, "has the character '" + c + "'; write names " + RULE);
            }
            i++;
        }
        return key.toString();
    }

    private static ConfigException bad(String variable, String why) {
        return new ConfigException("environment variable " + variable + ": " + why);
    }

    /**
     * The variable that sets {@code key} in {@code group}, the inverse of the naming rule; for messages and the
     * documentation. Returns null for a name the rule cannot express (characters other than letters, digits,
     * '.', '_' and '-', upper-case letters, or '_' or '-' next to '.').
     */
    public static @Nullable String variableOf(Group group, String key) {
        StringBuilder b = new StringBuilder(group.prefix());
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c == '.') {
                b.append('_');
            } else if (c == '_') {
                b.append("__");
            } else if (c == '-') {
                b.append("___");
            } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
                b.append(Character.toUpperCase(c));
            } else {
                return null;
            }
        }
        String variable = b.toString();
        try {
            return keyOf(variable, variable.substring(group.prefix().length())).equals(key) ? variable : null;
        } catch (ConfigException e) {
            return null;
        }
    }

    /** The settings of one group, in variable name order. */
    public List<Setting> settings(Group group) {
        return Objects.requireNonNull(settings.get(group), () -> "no settings list for " + group);
    }

    /** The settings of one group as properties (setting name → value). */
    public Properties properties(Group group) {
        Properties props = new Properties();
        for (Setting s : settings(group)) {
            props.setProperty(s.key(), s.value());
        }
        return props;
    }

    /** A launcher variable's value, or null when it is unset. */
    public @Nullable String launcher(String name) {
        if (!LAUNCHER_VARIABLES.contains(name)) {
            throw new IllegalArgumentException("not a launcher variable: " + name);
        }
        return launcher.get(name);
    }

    /** Whether a setting's value should be masked when printed (passwords, JAAS configs, secrets, tokens). */
    public static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.contains("password")
                || k.contains("secret")
                || k.contains("jaas")
                || k.contains("token")
                || k.contains("credential")
                || k.endsWith("user.info")
                || k.endsWith("webhook.url");
    }
}
