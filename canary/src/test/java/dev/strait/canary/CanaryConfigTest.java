package dev.strait.canary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.settings.ConfigException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The canary's settings: checked against their table, with the defaults that follow from other settings. */
class CanaryConfigTest {

    private static Properties base() {
        Properties p = new Properties();
        p.put("source.bootstrap.servers", "127.0.0.1:1");
        p.put("target.bootstrap.servers", "127.0.0.1:2");
        return p;
    }

    @Test
    void theThresholdsDefaultToMultiplesOfTheInterval() {
        // Given
        Properties p = base();
        p.put("interval.ms", "10000");

        // When
        CanaryConfig config = CanaryConfig.from(p);

        // Then
        assertThat(config.alarmThresholdMs()).isEqualTo(20_000);
        assertThat(config.lostAfterMs()).isEqualTo(50_000);
        assertThat(config.topic()).isEqualTo("strait-canary");
        assertThat(config.targetTopic()).isEqualTo("strait-canary");
        assertThat(config.canaryId()).matches("canary-[0-9a-f]{8}");
        assertThat(config.replicationFactor()).isEqualTo((short) -1);
        assertThat(config.targetClient()).doesNotContainKey("topic");
        p.put("alarm.threshold.ms", "40000");
        assertThat(CanaryConfig.from(p).lostAfterMs()).isEqualTo(80_000);
    }

    @Test
    void eachValueIsCheckedAndLostMustComeAfterLate() {
        Properties p = base();
        p.put("interval.ms", "999");
        assertThatThrownBy(() -> CanaryConfig.from(p))
                .isInstanceOf(ConfigException.class)
                .hasMessage("Invalid value 999 for configuration interval.ms: must be between 1000 and 86400000");
        p.remove("interval.ms");
        p.put("topic", "no spaces");
        assertThatThrownBy(() -> CanaryConfig.from(p))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(
                        "Invalid value no spaces for configuration topic: not a valid Kafka topic name");
        p.remove("topic");
        p.put("alarm.threshold.ms", "5000");
        p.put("lost.after.ms", "5000");
        assertThatThrownBy(() -> CanaryConfig.from(p))
                .isInstanceOf(ConfigException.class)
                .hasMessage("lost.after.ms (5000) must be above alarm.threshold.ms (5000)");
        Properties noTarget = base();
        noTarget.remove("target.bootstrap.servers");
        assertThatThrownBy(() -> CanaryConfig.from(noTarget))
                .isInstanceOf(ConfigException.class)
                .hasMessage("target.bootstrap.servers is required (host:port of the cluster)");
    }

    @Test
    void theExampleFileParsesAndEveryKeyInItIsDeclared() throws Exception {
        // Given: config/canary.properties with its commented-out lines too
        Path file = Path.of("..").toAbsolutePath().normalize().resolve("config").resolve("canary.properties");
        Properties example = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            example.load(in);
        }
        Properties everyLine = new Properties();
        everyLine.load(new StringReader(
                Files.readString(file, StandardCharsets.UTF_8).replaceAll("(?m)^#([a-z][a-z.]*=)", "$1")));

        // When
        CanaryConfig config = CanaryConfig.from(example);

        // Then
        assertThat(config.httpPort()).isEqualTo(9103);
        assertThat(CanaryConfig.from(everyLine).canaryId()).isEqualTo("dc1-to-dc2");
        for (String key : everyLine.stringPropertyNames()) {
            assertThat(key.startsWith("source.")
                            || (key.startsWith("target.") && !key.equals("target.topic"))
                            || CanarySettings.TABLE.forKey(key).isPresent())
                    .as("%s in config/canary.properties is a setting", key)
                    .isTrue();
        }
    }
}
