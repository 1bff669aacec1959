package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class ReferenceDocTest {
    @Test
    void docsReferenceMatchesTheCommands() throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        String fresh = ReferenceDoc.render(root);

        assertThat(Files.readString(root.resolve("docs").resolve("reference.md"), StandardCharsets.UTF_8))
                .as(
                        "docs/reference.md is out of date: build, then regenerate it with java -cp 'mirror-cli/target/classes:"
                                + "mirror-core/target/classes:lag-monitor/target/classes:canary/target/classes:"
                                + "broker/target/classes:time/target/classes:settings/target/classes:mirror-cli/target/lib/*'"
                                + " dev.strait.cli.ReferenceDoc .")
                .isEqualTo(fresh);
        assertThat(fresh)
                .contains("--consumer.config")
                .contains("lag-monitor check")
                .contains("alert.webhook.url")
                .as("the lag monitor's and the canary's settings come from their tables")
                .contains("### config/lag-monitor.properties")
                .contains("| `window.size` | int | `10` | between 2 and 1000 |")
                .contains("### config/canary.properties")
                .contains("| `alarm.threshold.ms` | long | 2 x interval.ms |")
                .as("the broker's settings come from its table")
                .contains("## Broker settings")
                .contains("| `num.io.threads` | int |")
                .contains("`listener.name.<listener>.<mechanism>.sasl.jaas.config`");
    }
}
