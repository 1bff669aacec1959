package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.settings.Setting;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** config/broker.properties is what the settings table renders, and what it sets starts a node as documented. */
class BrokerSettingsDocTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void configBrokerPropertiesIsWhatTheTableGenerates() throws Exception {
        String committed = Files.readString(BrokerSettingsDoc.propertiesFile(ROOT), StandardCharsets.UTF_8);

        assertThat(committed)
                .as("config/broker.properties is out of date: regenerate it from the repository's root with "
                        + BrokerSettingsDoc.REGENERATE)
                .isEqualTo(BrokerSettingsDoc.properties());
    }

    @Test
    void theGeneratedFileDocumentsEverySettingAndParsesToTheDefaults() throws Exception {
        String text = BrokerSettingsDoc.properties();
        for (Setting<?> setting : BrokerSettings.all()) {
            assertThat(text).as(setting.name()).contains(setting.name() + "=");
        }
        Properties props = new Properties();
        props.load(new java.io.StringReader(text));

        BrokerConfig config = BrokerConfig.from(props);

        assertThat(props.stringPropertyNames()).containsExactlyInAnyOrder("node.id", "listeners", "log.dirs");
        assertThat(config.nodeId()).isEqualTo(1);
        assertThat(config.port()).isEqualTo(9092);
        assertThat(config.logDirs()).containsExactly(Path.of("/tmp/strait-broker-1"));
        assertThat(config.hasControllerQuorum()).isFalse();
    }

    /** Every commented-out line of the file, uncommented one at a time, is a value the broker accepts. */
    @Test
    void everyCommentedDefaultAndExampleIsAccepted() {
        Map<String, String> standalone = Map.of("node.id", "1", "log.dirs", "/tmp/x");
        for (Setting<?> setting : BrokerSettings.all()) {
            String shown = setting.example() != null ? setting.example() : setting.defaultValue();
            if (shown == null) {
                continue;
            }
            assertThat(setting.parse(setting.name(), shown))
                    .as("%s=%s", setting.name(), shown)
                    .isNotNull();
        }
        // The defaults alone make a standalone node.
        assertThat(BrokerConfig.from(standalone).listenerName()).isEqualTo("PLAINTEXT");
    }

    @Test
    void theReferenceSectionHasARowPerSetting() {
        String markdown = BrokerSettingsDoc.markdown();
        for (Setting<?> setting : BrokerSettings.all()) {
            assertThat(markdown).as(setting.name()).contains(setting.name() + "` |");
        }
        assertThat(markdown).contains("### TLS").contains("| `ssl.keystore.password` | password, per listener |");
    }
}
