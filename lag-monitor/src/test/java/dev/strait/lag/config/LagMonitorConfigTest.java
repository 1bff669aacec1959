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
}
