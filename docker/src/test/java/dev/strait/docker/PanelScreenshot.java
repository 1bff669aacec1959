package dev.strait.docker;

import dev.strait.testkit.Docker;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A dashboard panel's query drawn by Prometheus's own graph page (its classic UI, what Debian's package ships), in
 * Debian's headless {@code chromium}: one run saves the screenshot, a second dumps the DOM the page's script built,
 * and {@link #problems} reads that DOM for a drawn line and legend and no error shown. Grafana's variables are
 * replaced as a dashboard showing "All" would: {@code =~"$var"} matches anything, {@code $__rate_interval} is one
 * minute (four scrapes of 15 s), {@code $__range} the page's range.
 */
final class PanelScreenshot {
    static final String RANGE = "5m";
    private static final Duration BROWSER_TIMEOUT = Duration.ofMinutes(2);
    /** Virtual time the page gets for its requests and drawing before chromium shoots it. */
    private static final String BUDGET_MS = "20000";

    private static final Pattern LINE = Pattern.compile("<path class=\"path\" d=\"M");
    private static final Pattern LEGEND_ENTRY = Pattern.compile("<li class=\"line");
    private static final Pattern ERROR_SHOWN =
            Pattern.compile("class=\"error alert alert-danger\"(?! style=\"display: none;\")[^>]*>([^<]*)<");

    private PanelScreenshot() {}

    /** The browser named by STRAIT_CHROMIUM, else chromium on the PATH, else null. */
    static Path chromium() {
        String named = System.getenv("STRAIT_CHROMIUM");
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named);
            return Files.isExecutable(p) ? p : null;
        }
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    /** The panel's PromQL as Prometheus can run it: Grafana's variables replaced. */
    static String runnable(String panelExpr) {
        return panelExpr
                .replaceAll("=~\\s*\"\\$\\w+\"", "=~\".*\"")
                .replace("$__rate_interval", "1m")
                .replace("$__range", RANGE);
    }

    /** The classic graph page of {@code expr} over the last {@link #RANGE}, graph tab open. */
    static String graphUrl(String prometheusUrl, String expr) {
        return prometheusUrl + "/classic/graph?g0.expr=" + URLEncoder.encode(expr, StandardCharsets.UTF_8)
                + "&g0.tab=0&g0.range_input=" + RANGE;
    }

    /** Saves the page's screenshot to {@code png} and returns the DOM its script built. */
    static String shoot(Path chromium, String url, Path png) {
        Path profile;
        try {
            profile = Files.createTempDirectory("strait-chromium-");
            Files.createDirectories(png.toAbsolutePath().getParent());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            List<String> common = List.of(
                    chromium.toString(),
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--hide-scrollbars",
                    "--user-data-dir=" + profile,
                    "--window-size=1400,1000",
                    "--virtual-time-budget=" + BUDGET_MS);
            List<String> screenshot = new ArrayList<>(common);
            screenshot.addAll(List.of("--screenshot=" + png.toAbsolutePath(), url));
            Docker.Result shot = Docker.run(BROWSER_TIMEOUT, screenshot);
            if (!shot.ok() || !Files.isRegularFile(png)) {
                throw new AssertionError(
                        "chromium did not save " + png + " (exit " + shot.exitCode() + "):\n" + shot.output());
            }
            List<String> dump = new ArrayList<>(common);
            dump.addAll(List.of("--dump-dom", url));
            // stdout only: the DOM; chromium's own complaints (D-Bus and the like) go to stderr.
            return dom(dump);
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // a temp profile left behind is harmless
            }
        }
    }

    /** What is wrong with a graph page's DOM: no line drawn, no legend, or an error shown; empty when none. */
    static List<String> problems(String dom) {
        List<String> problems = new ArrayList<>();
        if (!LINE.matcher(dom).find()) {
            problems.add("no line drawn (no <path class=\"path\" d=\"M...\">)");
        }
        if (!LEGEND_ENTRY.matcher(dom).find()) {
            problems.add("no series in the legend");
        }
        Matcher error = ERROR_SHOWN.matcher(dom);
        if (error.find()) {
            problems.add("the page shows an error: " + error.group(1).strip());
        }
        return problems;
    }

    private static String dom(List<String> command) {
        try {
            Path out = Files.createTempFile("strait-chromium-dom-", ".html");
            try {
                Process p = new ProcessBuilder(command)
                        .redirectOutput(out.toFile())
                        .redirectError(ProcessBuilder.Redirect.DISCARD)
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .start();
                if (!p.waitFor(BROWSER_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    p.descendants().forEach(ProcessHandle::destroyForcibly);
                    p.destroyForcibly();
                    throw new AssertionError("chromium --dump-dom did not finish within " + BROWSER_TIMEOUT.toSeconds()
                            + " s: " + String.join(" ", command));
                }
                return Files.readString(out, StandardCharsets.UTF_8);
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
