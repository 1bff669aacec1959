package dev.strait.cli.container;

import dev.strait.cli.Cli;
import dev.strait.cli.Strait;
import dev.strait.cli.container.ContainerLaunch.ConfigFile;
import dev.strait.cli.container.ContainerLaunch.Plan;
import dev.strait.settings.ConfigException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The container image's main class ({@code docker/entrypoint.sh} runs it): {@code ContainerMain <role> [flags]}.
 * Maps the environment to properties files and flags ({@link EnvConfig}, {@link ContainerLaunch}), writes the files
 * (mode 600: they may hold credentials) to {@code STRAIT_RUN_DIR} (default {@code /tmp/strait}), writes the
 * endpoint the healthcheck probes to {@code STRAIT_RUN_DIR/health}, then runs the {@link Strait} command in this
 * JVM. With {@code STRAIT_DRY_RUN=1} it writes the files, prints the command line, the files (secrets masked) and the
 * health endpoint, and exits 0 without running anything. Bad input: one line on stderr, exit code 2.
 */
public final class ContainerMain {
    private static final Logger LOGGER = LoggerFactory.getLogger(ContainerMain.class);
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9._/:=@%+,-]+");

    private ContainerMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    static int run(String[] args, Map<String, String> environment, PrintStream out, PrintStream err) {
        Plan plan;
        boolean dryRun;
        Path runDir;
        try {
            EnvConfig env = EnvConfig.from(environment);
            runDir = Path.of(orDefault(env.launcher("STRAIT_RUN_DIR"), "/tmp/strait"));
            Path dataDir = Path.of(orDefault(env.launcher("STRAIT_DATA_DIR"), "/var/lib/strait"));
            dryRun = "1".equals(env.launcher("STRAIT_DRY_RUN")) || "true".equals(env.launcher("STRAIT_DRY_RUN"));
            plan = ContainerLaunch.plan(List.of(args), env, runDir, dataDir, hostname(environment));
            for (ConfigFile file : plan.files()) {
                write(file.path(), render(file.props(), false));
            }
        } catch (ConfigException e) {
            err.println("strait: error: " + e.getMessage());
            err.flush();
            return Cli.BAD_INPUT;
        } catch (UncheckedIOException e) {
            err.println("strait: error: cannot write the generated configuration (STRAIT_RUN_DIR): " + e.getCause());
            err.flush();
            return Cli.BAD_INPUT;
        }
        if (dryRun) {
            printPlan(plan, out);
            return Cli.OK;
        }
        for (ConfigFile file : plan.files()) {
            List<String> vars = new ArrayList<>();
            file.fromEnv().forEach(s -> vars.add(s.variable()));
            LOGGER.info(
                    "{}: {}{}",
                    file.path(),
                    file.base(),
                    vars.isEmpty() ? "" : ", overridden by " + String.join(", ", vars));
        }
        if (plan.health() != null) {
            try {
                write(runDir.resolve("health"), plan.health() + "\n");
            } catch (UncheckedIOException e) {
                err.println("strait: error: cannot write " + runDir.resolve("health") + ": " + e.getCause());
                return Cli.BAD_INPUT;
            }
        }
        return Cli.execute(new Strait(), plan.args().toArray(new String[0]));
    }

    private static void printPlan(Plan plan, PrintStream out) {
        out.println("command: strait " + shellQuote(plan.args()));
        for (ConfigFile file : plan.files()) {
            List<String> vars = new ArrayList<>();
            file.fromEnv().forEach(s -> vars.add(s.variable()));
            out.println("file: " + file.path() + " (base: " + file.base() + "; environment: "
                    + (vars.isEmpty() ? "none" : String.join(", ", vars)) + ")");
            for (String line : render(file.props(), true).split("\n")) {
                if (!line.isEmpty()) {
                    out.println("  " + line);
                }
            }
        }
        out.println("health: " + (plan.health() == null ? "unchanged (one-shot command)" : plan.health()));
        out.flush();
    }

    /** Properties in name order, escaped as {@link Properties#store} escapes them. */
    static String render(Properties props, boolean maskSecrets) {
        StringBuilder b = new StringBuilder();
        for (String key : new TreeSet<>(props.stringPropertyNames())) {
            String value = maskSecrets && EnvConfig.isSecret(key) ? "******" : props.getProperty(key);
            Properties one = new Properties();
            one.setProperty(key, value);
            StringWriter w = new StringWriter();
            try {
                one.store(w, null);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            for (String line : w.toString().split("\\R")) {
                if (!line.startsWith("#") && !line.isEmpty()) {
                    b.append(line).append('\n');
                }
            }
        }
        return b.toString();
    }

    private static void write(Path path, String text) {
        try {
            Files.createDirectories(path.getParent());
            Path tmp = path.resolveSibling(path.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
                Files.createFile(
                        tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            }
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String hostname(Map<String, String> environment) {
        String name = environment.get("HOSTNAME");
        if (name != null && !name.isBlank()) {
            return name.trim();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    private static String orDefault(@Nullable String value, String defaultValue) {
        return value == null || value.isBlank() ? defaultValue : value;
    }

    static String shellQuote(List<String> args) {
        List<String> out = new ArrayList<>();
        for (String a : args) {
            out.add(PLAIN_WORD.matcher(a).matches() ? a : "'" + a.replace("'", "'\\''") + "'");
        }
        return String.join(" ", out);
    }
}
