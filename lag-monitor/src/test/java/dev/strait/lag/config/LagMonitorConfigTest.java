package dev.strait.lag.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.lag.FilterAndSplitHandler;
import dev.strait.settings.ConfigException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The lag monitor's settings: checked against their table, and the mirror's message handler as they name it. */
class LagMonitorConfigTest {
    private static Properties base() {
        Properties p = new Properties();
        p.put("source.bootstrap.servers", "127.0.0.1:1");
        p.put("target.bootstrap.servers", "127.0.0.1:2");
        p.put("mirror.group.id", "g");
        return p;
    }

    @Test
    void withoutAHandlerThereIsNone() {
        assertThat(LagMonitorConfig.from(base()).messageHandler()).isNull();
    }

    @Test
    void theHandlerIsLoadedAndConfiguredWithItsArgs() {
        Properties p = base();
        p.put("message.handler", FilterAndSplitHandler.class.getName());
        p.put("message.handler.args", "lose=3");
        assertThat(LagMonitorConfig.from(p).messageHandler()).isInstanceOf(FilterAndSplitHandler.class);
    }

    @Test
    void aBadHandlerIsOneClearError() {
        Properties missing = base();
        missing.put("message.handler", "com.example.Nope");
        assertThatThrownBy(() -> LagMonitorConfig.from(missing))
                .isInstanceOf(ConfigException.class)
                .hasMessage(
                        "message.handler class com.example.Nope is not on the class path (put its jar in STRAIT_CLASSPATH)");
        Properties notAHandler = base();
        notAHandler.put("message.handler", String.class.getName());
        assertThatThrownBy(() -> LagMonitorConfig.from(notAHandler))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("does not implement dev.strait.mirror.handler.MessageHandler");
        Properties badArgs = base();
        badArgs.put("message.handler", FilterAndSplitHandler.class.getName());
        badArgs.put("message.handler.args", "nonsense");
        assertThatThrownBy(() -> LagMonitorConfig.from(badArgs))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("rejected message.handler.args: expected lose=N, not nonsense");
        Properties argsAlone = base();
        argsAlone.put("message.handler.args", "x");
        assertThatThrownBy(() -> LagMonitorConfig.from(argsAlone))
                .isInstanceOf(ConfigException.class)
                .hasMessage("message.handler.args needs message.handler");
    }

    @Test
    void theStatusPagesNeighboursAreOptionalAndTheMirrorsDefaultsToMirrorMetricsUrl() {
        LagMonitorConfig none = LagMonitorConfig.from(base());
        assertThat(none.canaryMetricsUrl()).isNull();
        assertThat(none.pageMirrorMetricsUrl()).isNull();
        assertThat(none.pagePollTimeoutMs()).isEqualTo(2_000);

        Properties p = base();
        p.put("mirror.metrics.url", "http://mirror:9090/metrics");
        p.put("status.page.canary.metrics.url", "http://canary:9100/metrics");
        p.put("status.page.poll.timeout.ms", "500");
        LagMonitorConfig both = LagMonitorConfig.from(p);
        assertThat(both.canaryMetricsUrl()).hasToString("http://canary:9100/metrics");
        assertThat(both.pageMirrorMetricsUrl()).hasToString("http://mirror:9090/metrics");
        assertThat(both.pagePollTimeoutMs()).isEqualTo(500);

        p.put("status.page.mirror.metrics.url", "http://other:9090/metrics");
        assertThat(LagMonitorConfig.from(p).pageMirrorMetricsUrl()).hasToString("http://other:9090/metrics");

        Properties bad = base();
        bad.put("status.page.canary.metrics.url", "canary:9100");
        assertThatThrownBy(() -> LagMonitorConfig.from(bad))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value canary:9100 for configuration status.page.canary.metrics.url: must be an"
                        + " http:// or https:// URL");
    }

    @Test
    void eachValueIsCheckedAgainstTheTableAndABlankOneIsTheDefault() {
        Properties p = base();
        p.put("window.size", "1");
        assertThatThrownBy(() -> LagMonitorConfig.from(p))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 1 for configuration window.size: must be between 2 and 1000");
        p.put("window.size", " ");
        p.put("topics", "prod\\..*");
        LagMonitorConfig config = LagMonitorConfig.from(p);
        assertThat(config.windowSize()).isEqualTo(10);
        assertThat(config.topics().matcher("prod.orders").matches()).isTrue();
        assertThat(config.topics().matcher("__consumer_offsets").matches()).isFalse();
        assertThat(config.mirrorCommitIntervalMs()).isEqualTo(LagMonitorConfig.UNKNOWN);
        p.put("topics", "prod(");
        assertThatThrownBy(() -> LagMonitorConfig.from(p))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value prod( for configuration topics: not a valid regex: ");
        Properties noGroup = base();
        noGroup.remove("mirror.group.id");
        assertThatThrownBy(() -> LagMonitorConfig.from(noGroup))
                .isInstanceOf(ConfigException.class)
                .hasMessage("mirror.group.id is required: the consumer group of the mirror to watch");
    }

    @Test
    void theExampleFileParsesAndEveryKeyInItIsDeclared() throws Exception {
        // Given: config/lag-monitor.properties with its commented-out lines too
        Path file = Path.of("..").toAbsolutePath().normalize().resolve("config").resolve("lag-monitor.properties");
        Properties example = new Properties();
        Properties everyLine = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            example.load(in);
        }
        everyLine.load(new StringReader(
                Files.readString(file, StandardCharsets.UTF_8).replaceAll("(?m)^#([a-z][a-z.]*=)", "$1")));

        // When
        LagMonitorConfig config = LagMonitorConfig.from(example);

        // Then
        assertThat(config.mirrorGroupId()).isEqualTo("strait-mirror");
        assertThat(config.httpPort()).isEqualTo(9102);
        for (String key : everyLine.stringPropertyNames()) {
            assertThat(key.startsWith("source.")
                            || key.startsWith("target.")
                            || LagMonitorSettings.TABLE.forKey(key).isPresent())
                    .as("%s in config/lag-monitor.properties is a setting", key)
                    .isTrue();
        }
    }
}
