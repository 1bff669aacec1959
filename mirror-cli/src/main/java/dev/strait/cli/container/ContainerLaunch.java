package dev.strait.cli.container;

import dev.strait.cli.CanaryCommand;
import dev.strait.cli.LagMonitorCommand;
import dev.strait.cli.MirrorCommand;
import dev.strait.cli.Strait;
import dev.strait.cli.container.EnvConfig.Group;
import dev.strait.cli.container.EnvConfig.Setting;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.settings.ConfigException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Plans what the container image runs for {@code <role> [flags]}: the command line for {@link Strait} and the
 * properties files to write from the environment ({@link EnvConfig}). Pure: it reads explicitly given config
 * files but writes nothing; {@link ContainerMain} writes the files and runs the command.
 *
 * <p>Precedence, per properties file. When a file is given explicitly (mirror {@code --consumer.config} /
 * {@code --producer.config}, lag-monitor and canary {@code --config}, the broker's positional file), that file is
 * the base and the container's defaults do not apply; with no variables of its group it is used as it is. With
 * variables, a copy is written to the run directory with the variables on top: <b>file &lt; environment</b>. When
 * no file is given: <b>container defaults &lt; environment</b>.
 *
 * <p>Mirror flags: {@code STRAIT_MIRROR_ARGS} (split on whitespace) goes first, then the command's own flags;
 * a {@code STRAIT_MIRROR_<FLAG>} variable adds its flag only when the command line does not have it:
 * <b>container defaults &lt; STRAIT_MIRROR_&lt;FLAG&gt; &lt; command line</b>. The container defaults are
 * {@code --metrics.port 9101 --metrics.host 0.0.0.0}.
 *
 * <p>Container defaults: lag monitor {@code http.port=9102 http.host=0.0.0.0}; canary {@code http.port=9103
 * http.host=0.0.0.0}; broker {@code node.id=1}, {@code listeners=PLAINTEXT://<hostname>:9092} (the broker
 * advertises its listener host, so the container's host name is what other containers can reach), and
 * {@code log.dirs=<data dir>/broker}.
 *
 * <p>Not thread-safe: an instance plans one launch on the calling thread ({@link #plan} makes and drops it).
 */
final class ContainerLaunch {
    static final int MIRROR_METRICS_PORT = 9101;
    static final int LAG_HTTP_PORT = 9102;
    static final int CANARY_HTTP_PORT = 9103;
    static final int BROKER_PORT = 9092;

    private static final Set<String> HELP = Set.of("-h", "--help", "-V", "--version");
    private static final Pattern LISTENER = Pattern.compile("([A-Za-z_]+)://(\\[[^\\]]*\\]|[^:]*):(\\d+)");

    /** A properties file to write, where its settings came from, for the log and the dry run. */
    record ConfigFile(Path path, Properties props, String base, List<Setting> fromEnv) {}

    /**
     * What to run. {@code health} is the endpoint the image's healthcheck probes ({@code http HOST PORT PATH},
     * {@code kafka HOST PORT} for a broker, {@code none} for a daemon with its endpoint off, {@code unparsable} when
     * the broker's listeners cannot be read), or null for a one-shot command
     * that must leave the running daemon's health file alone.
     */
    record Plan(
            List<String> args,
            List<ConfigFile> files,
            @Nullable String health) {}

    private final EnvConfig env;
    private final Path runDir;
    private final Path dataDir;
    private final String hostname;
    private final List<ConfigFile> files = new ArrayList<>();

    private ContainerLaunch(EnvConfig env, Path runDir, Path dataDir, String hostname) {
        this.env = env;
        this.runDir = runDir;
        this.dataDir = dataDir;
        this.hostname = hostname;
    }

    /**
     * @param args the role and its flags, as given to the image (e.g. {@code mirror --num.streams 4})
     * @param runDir where generated properties files go
     * @param dataDir the data volume (the broker's default log.dirs is under it)
     * @param hostname the container's host name (the broker's default listener host)
     * @throws ConfigException on bad input: one line naming the variable, flag or file
     */
    static Plan plan(List<String> args, EnvConfig env, Path runDir, Path dataDir, String hostname) {
        List<String> all = new ArrayList<>(args);
        if (all.isEmpty()) {
            all.add("mirror");
        }
        String role = all.get(0);
        List<String> rest = new ArrayList<>(all.subList(1, all.size()));
        if (rest.stream().anyMatch(HELP::contains)) {
            return new Plan(all, List.of(), null);
        }
        ContainerLaunch launch = new ContainerLaunch(env, runDir, dataDir, hostname);
        switch (role) {
            case "mirror":
                return launch.mirror(rest);
            case "lag-monitor":
                return launch.daemonWithConfig(role, Group.LAG, LAG_HTTP_PORT, rest, Set.of("check", "audit"));
            case "canary":
                return launch.daemonWithConfig(role, Group.CANARY, CANARY_HTTP_PORT, rest, Set.of());
            case "broker":
                return launch.broker(rest);
            default:
                // demo, help, or something Strait itself will explain.
                return new Plan(all, List.of(), null);
        }
    }

    private Plan mirror(List<String> rest) {
        List<String> args = new ArrayList<>(splitArgs(env.launcher("STRAIT_MIRROR_ARGS")));
        args.addAll(rest);
        CommandSpec spec = new CommandLine(new MirrorCommand()).getCommandSpec();
        List<String> fromEnv = new ArrayList<>();
        for (Setting s : env.settings(Group.MIRROR)) {
            OptionSpec option = spec.findOption("--" + s.key());
            if (option == null || option.arity().max() < 1) {
                throw new ConfigException("environment variable " + s.variable() + ": the mirror has no flag --"
                        + s.key() + " that takes a value (see 'strait mirror --help')");
            }
            if (indexOf(args, option) < 0) {
                fromEnv.add(option.longestName());
                fromEnv.add(s.value());
            }
        }
        args.addAll(fromEnv);
        addDefault(args, spec.findOption("--metrics.port"), Integer.toString(MIRROR_METRICS_PORT));
        addDefault(args, spec.findOption("--metrics.host"), "0.0.0.0");
        clientConfig(args, spec.findOption("--consumer.config"), Group.CONSUMER, "consumer.properties", "source");
        clientConfig(args, spec.findOption("--producer.config"), Group.PRODUCER, "producer.properties", "target");
        int port = intFlag(args, spec.findOption("--metrics.port"));
        String host = valueOf(args, spec.findOption("--metrics.host"));
        List<String> command = new ArrayList<>();
        command.add("mirror");
        command.addAll(args);
        return new Plan(
                command, List.copyOf(files), port > 0 ? "http " + probeHost(host) + " " + port + " /healthz" : "none");
    }

    /** The consumer or producer file: explicit file &lt; STRAIT_CONSUMER_* / STRAIT_PRODUCER_*. */
    private void clientConfig(List<String> args, OptionSpec flag, Group group, String fileName, String cluster) {
        String explicit = valueOf(args, flag);
        if (explicit != null && env.settings(group).isEmpty()) {
            return;
        }
        Properties props =
                explicit == null ? new Properties() : ClientConfigs.load(Path.of(explicit), flag.longestName());
        props.putAll(env.properties(group));
        if (explicit == null) {
            require(props, "bootstrap.servers", group, "the " + cluster + " cluster's host:port list", flag);
            if (group == Group.CONSUMER) {
                require(props, "group.id", group, "the mirror's consumer group", flag);
            }
        }
        Path out = runDir.resolve(fileName);
        files.add(new ConfigFile(out, props, base(explicit, flag), env.settings(group)));
        setValue(args, flag, out.toString());
    }

    private static void require(Properties props, String key, Group group, String what, OptionSpec flag) {
        if (props.getProperty(key, "").isBlank()) {
            throw new ConfigException("no " + key + " (" + what + "): set " + EnvConfig.variableOf(group, key)
                    + ", or mount a properties file and pass " + flag.longestName() + " FILE");
        }
    }

    /** Lag monitor and canary: {@code --config} file &lt; STRAIT_LAG_* / STRAIT_CANARY_*. */
    private Plan daemonWithConfig(String role, Group group, int defaultPort, List<String> rest, Set<String> oneShots) {
        List<String> args = new ArrayList<>(rest);
        String sub = !args.isEmpty() && oneShots.contains(args.get(0)) ? args.get(0) : null;
        OptionSpec flag = configOption(role, sub);
        String explicit = valueOf(args, flag);
        Properties props;
        if (explicit != null && env.settings(group).isEmpty()) {
            props = ClientConfigs.load(Path.of(explicit), "--config");
        } else {
            if (explicit == null) {
                props = new Properties();
                props.setProperty("http.port", Integer.toString(defaultPort));
                props.setProperty("http.host", "0.0.0.0");
            } else {
                props = ClientConfigs.load(Path.of(explicit), "--config");
            }
            props.putAll(env.properties(group));
            Path out = runDir.resolve(role + (sub == null ? "" : "-" + sub) + ".properties");
            files.add(new ConfigFile(out, props, base(explicit, flag), env.settings(group)));
            setValue(args, flag, out.toString());
        }
        List<String> command = new ArrayList<>();
        command.add(role);
        command.addAll(args);
        String health = null;
        if (sub == null) {
            int port = parsePort(props.getProperty("http.port", "-1"), group, "http.port");
            health = port > 0 ? "http " + probeHost(props.getProperty("http.host")) + " " + port + " /healthz" : "none";
        }
        return new Plan(command, List.copyOf(files), health);
    }

    private static OptionSpec configOption(String role, @Nullable String sub) {
        CommandLine cl = new CommandLine(role.equals("canary") ? new CanaryCommand() : new LagMonitorCommand());
        if (sub != null) {
            cl = Objects.requireNonNull(cl.getSubcommands().get(sub), () -> role + " has no subcommand " + sub);
        }
        return cl.getCommandSpec().findOption("--config");
    }

    /** Broker: positional server.properties &lt; STRAIT_BROKER_*. */
    private Plan broker(List<String> rest) {
        int fileIndex = -1;
        for (int i = 0; i < rest.size(); i++) {
            if (!rest.get(i).startsWith("-")) {
                fileIndex = i;
                break;
            }
        }
        String explicit = fileIndex < 0 ? null : rest.get(fileIndex);
        List<String> args = new ArrayList<>(rest);
        Properties props;
        if (explicit != null && env.settings(Group.BROKER).isEmpty()) {
            props = ClientConfigs.load(Path.of(explicit), "server.properties");
        } else {
            if (explicit == null) {
                props = new Properties();
                props.setProperty("node.id", "1");
                props.setProperty("listeners", "PLAINTEXT://" + hostname + ":" + BROKER_PORT);
                props.setProperty("log.dirs", dataDir.resolve("broker").toString());
            } else {
                props = ClientConfigs.load(Path.of(explicit), "server.properties");
            }
            props.putAll(env.properties(Group.BROKER));
            Path out = runDir.resolve("broker.properties");
            files.add(new ConfigFile(
                    out,
                    props,
                    explicit == null ? "container defaults" : "server.properties " + explicit,
                    env.settings(Group.BROKER)));
            if (fileIndex < 0) {
                args.add(0, out.toString());
            } else {
                args.set(fileIndex, out.toString());
            }
        }
        List<String> command = new ArrayList<>();
        command.add("broker");
        command.addAll(args);
        return new Plan(command, List.copyOf(files), brokerHealth(props));
    }

    /**
     * The broker's probe: a Kafka ApiVersions round trip on its client listener, the one listener not named in
     * {@code controller.listener.names}, inside a TLS session when that listener's protocol is SSL or SASL_SSL (a
     * SASL listener answers ApiVersions before authentication, as Kafka's does). A listener list the broker cannot parse is its own one-line error at start;
     * the probe then has nothing to find and reports unhealthy ("unparsable").
     */
    private static String brokerHealth(Properties props) {
        String listeners = props.getProperty("listeners", "PLAINTEXT://127.0.0.1:" + BROKER_PORT)
                .trim();
        Set<String> controllers = new HashSet<>();
        for (String name : props.getProperty("controller.listener.names", "").split(",")) {
            if (!name.isBlank()) {
                controllers.add(name.trim().toUpperCase(Locale.ROOT));
            }
        }
        for (String listener : listeners.split(",")) {
            Matcher m = LISTENER.matcher(listener.trim());
            if (!m.matches()) {
                return "unparsable";
            }
            String name = m.group(1).toUpperCase(Locale.ROOT);
            if (!controllers.contains(name)) {
                String kind = tls(protocolOf(name, props)) ? "kafka-tls " : "kafka ";
                return kind + probeHost(m.group(2).replace("[", "").replace("]", "")) + " " + m.group(3);
            }
        }
        return "unparsable";
    }

    /** The security protocol of listener {@code name}: its entry in listener.security.protocol.map, or itself. */
    private static String protocolOf(String name, Properties props) {
        for (String entry :
                props.getProperty("listener.security.protocol.map", "").split(",")) {
            int colon = entry.indexOf(':');
            if (colon > 0 && entry.substring(0, colon).trim().equalsIgnoreCase(name)) {
                return entry.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
            }
        }
        return name;
    }

    /** SSL and SASL_SSL listeners speak TLS first: the probe's ApiVersions goes inside a TLS session. */
    private static boolean tls(String protocol) {
        return protocol.equals("SSL") || protocol.equals("SASL_SSL");
    }

    private static String base(@Nullable String explicit, OptionSpec flag) {
        return explicit == null ? "container defaults" : flag.longestName() + " " + explicit;
    }

    /** The address a probe inside the container connects to for a server bound to {@code host}. */
    private static String probeHost(@Nullable String host) {
        return host == null || host.isBlank() || host.equals("0.0.0.0") || host.equals("::")
                ? "127.0.0.1"
                : host.trim();
    }

    private static int parsePort(String text, Group group, String key) {
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a port number, not '" + text + "' (" + group.target() + ")");
        }
    }

    /** The value of a flag that was given or has been given its default ({@link #addDefault}). */
    private static int intFlag(List<String> args, OptionSpec flag) {
        String value = Objects.requireNonNull(valueOf(args, flag), () -> flag.longestName() + " has no value");
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(flag.longestName() + " must be a number, not '" + value + "'");
        }
    }

    private static void addDefault(List<String> args, OptionSpec flag, String value) {
        if (indexOf(args, flag) < 0) {
            args.add(flag.longestName());
            args.add(value);
        }
    }

    /** Index of the argument that names {@code flag} ({@code --flag value} or {@code --flag=value}), or -1. */
    static int indexOf(List<String> args, OptionSpec flag) {
        for (int i = 0; i < args.size(); i++) {
            for (String name : flag.names()) {
                if (args.get(i).equals(name) || args.get(i).startsWith(name + "=")) {
                    return i;
                }
            }
        }
        return -1;
    }

    /** The value given for {@code flag}, or null when it is absent. */
    static @Nullable String valueOf(List<String> args, OptionSpec flag) {
        int i = indexOf(args, flag);
        if (i < 0) {
            return null;
        }
        String arg = args.get(i);
        String name = flagName(arg, flag);
        if (arg.length() > name.length()) {
            return arg.substring(name.length() + 1);
        }
        if (i + 1 >= args.size()) {
            throw new ConfigException(name + " needs a value");
        }
        return args.get(i + 1);
    }

    private static void setValue(List<String> args, OptionSpec flag, String value) {
        int i = indexOf(args, flag);
        if (i < 0) {
            args.add(flag.longestName());
            args.add(value);
        } else if (!args.get(i).equals(flagName(args.get(i), flag))) {
            args.set(i, flagName(args.get(i), flag) + "=" + value);
        } else {
            args.set(i + 1, value);
        }
    }

    private static String flagName(String arg, OptionSpec flag) {
        for (String name : flag.names()) {
            if (arg.equals(name) || arg.startsWith(name + "=")) {
                return name;
            }
        }
        throw new IllegalStateException(arg + " does not name " + flag.longestName());
    }

    /** {@code STRAIT_MIRROR_ARGS}: whitespace-separated flags; no quoting (use a STRAIT_MIRROR_&lt;FLAG&gt; for spaces). */
    static List<String> splitArgs(@Nullable String text) {
        List<String> out = new ArrayList<>();
        if (text != null) {
            for (String part : text.trim().split("\\s+")) {
                if (!part.isEmpty()) {
                    out.add(part);
                }
            }
        }
        return out;
    }
}
