package dev.strait.lag.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.lag.FilterAndSplitHandler;
import dev.strait.mirror.config.ConfigException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The mirror's message handler as the lag monitor's config names it. */
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
                .hasMessageContaining("status.page.canary.metrics.url must be an http:// or https:// URL");
    }
}
