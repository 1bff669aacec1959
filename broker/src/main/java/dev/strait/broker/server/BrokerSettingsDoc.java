package dev.strait.broker.server;

import dev.strait.broker.partition.TopicConfigSettings;
import dev.strait.settings.Setting;
import dev.strait.settings.Setting.Scope;
import dev.strait.settings.SettingGroup;
import dev.strait.settings.SettingsMarkdown;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Renders {@link BrokerSettings} as {@code config/broker.properties} (every setting with its documentation, the
 * few a standalone node needs set, the others commented out with their defaults) and as the broker section of
 * {@code docs/reference.md}. {@code BrokerSettingsDocTest} fails when the committed file differs from a fresh
 * rendering; {@code BrokerSettingsDoc <repo-root>} rewrites it. Loads no Kafka or logging class, so the broker's
 * and the settings module's compiled classes alone run it.
 */
public final class BrokerSettingsDoc {

    /** The command that rewrites {@code config/broker.properties}, from the repository's root. */
    public static final String REGENERATE = "mvn -B -o -q -pl broker -am compile"
            + " && java -cp broker/target/classes:settings/target/classes "
            + BrokerSettingsDoc.class.getName() + " .";

    private static final int WIDTH = 110;
    /** The key a per-listener-and-mechanism setting is shown under in the example file. */
    private static final String EXAMPLE_MECHANISM_PREFIX = "listener.name.sasl_ssl.scram-sha-512.";

    private BrokerSettingsDoc() {}

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        Path file = propertiesFile(root);
        Files.writeString(file, properties(), StandardCharsets.UTF_8);
        System.out.println("wrote " + file);
    }

    /** Where the example file lives under the repository's root. */
    public static Path propertiesFile(Path root) {
        return root.resolve("config").resolve("broker.properties");
    }

    /** {@code config/broker.properties}. */
    public static String properties() {
        StringBuilder b = new StringBuilder();
        comment(
                b,
                "One node of Strait's companion broker: bin/broker config/broker.properties. Kafka's names; node.id,"
                        + " listeners and log.dirs are all a standalone node needs, every other setting is shown"
                        + " commented out with its default. config/broker-secured.properties is one node of a"
                        + " secured three-node cluster. A key that is no setting is logged and ignored; a bad value"
                        + " stops the broker with one line naming it.");
        b.append("#\n");
        comment(
                b,
                "Generated from the settings table, dev.strait.broker.server.BrokerSettings: edit the table, not"
                        + " this file, and regenerate it with");
        b.append("#   ").append(REGENERATE).append('\n');
        SettingGroup group = null;
        for (Setting<?> setting : BrokerSettings.all()) {
            if (setting.group() != group) {
                group = setting.group();
                b.append("\n# ===== ").append(group.title()).append(" =====\n");
                comment(b, group.intro());
            }
            b.append('\n');
            comment(b, setting.doc());
            comment(b, summary(setting));
            String key = setting.scope() == Scope.LISTENER_MECHANISM
                    ? EXAMPLE_MECHANISM_PREFIX + setting.name()
                    : setting.name();
            String value = setting.example() != null
                    ? setting.example()
                    : setting.defaultValue() != null ? setting.defaultValue() : "";
            b.append(setting.inExample() ? "" : "#")
                    .append(key)
                    .append('=')
                    .append(value)
                    .append('\n');
        }
        return b.toString();
    }

    /** The broker section of {@code docs/reference.md}: one table of settings per group. */
    public static String markdown() {
        StringBuilder b = new StringBuilder();
        b.append("## Broker settings\n\n")
                .append("Every setting of the companion broker (`bin/broker server.properties`) under Kafka's name,")
                .append(" from the table in\n`dev.strait.broker.server.BrokerSettings`, which also checks them")
                .append(" and generates `config/broker.properties`. A key\nthat is no setting is logged and")
                .append(" ignored; a bad value stops the broker with one line naming the key, the value and\n")
                .append("what is allowed. Password settings never appear in logs, messages or DescribeConfigs.\n");
        b.append(SettingsMarkdown.tables(BrokerSettings.all(), "###"));
        topicConfigs(b);
        return b.toString();
    }

    /** Every topic config, from {@link TopicConfigSettings}: what it allows and what the broker does with it. */
    private static void topicConfigs(StringBuilder b) {
        b.append("\n## Topic configs\n\n")
                .append(
                        "Every topic config of Apache Kafka 4.1.1, with Kafka's type and default, and Strait's own, from")
                .append(" the table in\n`dev.strait.broker.partition.TopicConfigSettings`, grouped by what the broker")
                .append(" does with them. CreateTopics,\nIncrementalAlterConfigs and AlterConfigs accept every valid")
                .append(" value and refuse a bad one with INVALID_CONFIG naming\nthe config and the value;")
                .append(" DescribeConfigs shows each with its source. A broker default\n([Topic defaults]")
                .append("(#topic-defaults)) overrides the built-in default shown here.\n");
        b.append(SettingsMarkdown.tables(TopicConfigSettings.all(), "###"));
    }

    /** The line under a setting's documentation: its type, what it allows and its default. */
    private static String summary(Setting<?> setting) {
        StringBuilder b = new StringBuilder(setting.type().label());
        if (!setting.allowedDoc().isEmpty()) {
            b.append(", ").append(setting.allowedDoc());
        }
        if (setting.name().equals("node.id")) {
            b.append("; required");
        } else {
            b.append("; default: ").append(setting.defaultDocText());
        }
        if (setting.scope() == Scope.LISTENER) {
            b.append("; per listener as listener.name.<listener>.").append(setting.name());
        }
        return b.append('.').toString();
    }

    private static void comment(StringBuilder b, String text) {
        for (String line : wrap(text, WIDTH - 2)) {
            b.append("# ").append(line).append('\n');
        }
    }

    private static List<String> wrap(String text, int width) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (word.isEmpty()) {
                continue;
            }
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        if (line.length() > 0) {
            lines.add(line.toString());
        }
        return lines;
    }
}
