package dev.strait.cli;

import dev.strait.broker.protocol.ServedApis;
import dev.strait.broker.server.BrokerSettingsDoc;
import dev.strait.canary.CanarySettings;
import dev.strait.lag.config.LagMonitorSettings;
import dev.strait.settings.SettingTable;
import dev.strait.settings.SettingsMarkdown;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine;

/**
 * Renders {@code docs/reference.md} from the commands themselves (picocli's usage help), the mirror's example client
 * files and the settings tables of the lag monitor ({@link LagMonitorSettings}), the canary ({@link CanarySettings})
 * and the broker ({@link BrokerSettingsDoc}), so the reference never drifts from the code: a test compares the
 * committed file with a fresh rendering. Run {@code ReferenceDoc <repo-root>} to rewrite it, and
 * {@code config/broker.properties} (generated from the broker's table) with it.
 */
public final class ReferenceDoc {
    private ReferenceDoc() {}

    public static void main(String[] args) throws IOException {
        Path root = Path.of(args.length > 0 ? args[0] : ".");
        Files.writeString(
                BrokerSettingsDoc.propertiesFile(root), BrokerSettingsDoc.properties(), StandardCharsets.UTF_8);
        Files.writeString(root.resolve("docs").resolve("reference.md"), render(root), StandardCharsets.UTF_8);
    }

    public static String render(Path root) throws IOException {
        StringBuilder b = new StringBuilder();
        b.append("# Reference\n\n")
                .append("Generated from the commands' own help, the example client files and the settings tables by\n")
                .append("`dev.strait.cli.ReferenceDoc`; `ReferenceDocTest` fails when this file is out of date.\n\n")
                .append("## Commands\n\n");
        CommandLine top = new CommandLine(new Strait());
        section(b, "bin/strait", top);
        for (CommandLine sub : top.getSubcommands().values()) {
            if (sub.getCommandName().equals("help")) {
                continue;
            }
            section(b, "bin/strait " + sub.getCommandName(), sub);
            for (CommandLine subsub : sub.getSubcommands().values()) {
                section(b, "bin/strait " + sub.getCommandName() + " " + subsub.getCommandName(), subsub);
            }
        }
        b.append("`bin/mirror-maker`, `bin/lag-monitor`, `bin/canary` and `bin/broker` are the same commands under\n")
                .append("their familiar names.\n\n## Configuration files\n\n")
                .append("The mirror's client files are Kafka's, shown here as the example files in `config/` give")
                .append(" them. The lag\nmonitor's and the canary's settings are rendered from their tables")
                .append(" (`LagMonitorSettings`, `CanarySettings`),\nand the broker's are under [Broker settings]")
                .append("(#broker-settings).\n\n");
        for (String name : List.of("consumer.properties", "producer.properties")) {
            b.append("### config/")
                    .append(name)
                    .append("\n\n```properties\n")
                    .append(Files.readString(root.resolve("config").resolve(name), StandardCharsets.UTF_8)
                            .stripTrailing())
                    .append("\n```\n\n");
        }
        settings(
                b,
                "lag-monitor.properties",
                "`bin/lag-monitor --config lag-monitor.properties`, from the table in"
                        + " `dev.strait.lag.config.LagMonitorSettings`.",
                LagMonitorSettings.TABLE);
        settings(
                b,
                "canary.properties",
                "`bin/canary --config canary.properties`, from the table in `dev.strait.canary.CanarySettings`.",
                CanarySettings.TABLE);
        b.append(BrokerSettingsDoc.markdown()).append('\n');
        servedApis(b);
        return b.toString();
    }

    /** A daemon's properties file: where its settings are declared, what it does with others, one table per group. */
    private static void settings(StringBuilder b, String file, String source, SettingTable table) {
        b.append("### config/")
                .append(file)
                .append("\n\n")
                .append(source)
                .append(" Kafka's client settings pass through with the `source.` and `target.` prefixes")
                .append(" (`source.bootstrap.servers` and `target.bootstrap.servers` are required; e.g.")
                .append(" `source.security.protocol=SASL_SSL`), and `config/")
                .append(file)
                .append("` is an example. A key that is no setting is logged and ignored; a bad value stops the ")
                .append(table.owner())
                .append(" with one line naming it; a blank value is the default.\n")
                .append(SettingsMarkdown.tables(table.all(), "####"))
                .append('\n');
    }

    /** The Kafka APIs the companion broker serves, as its ApiVersions answer advertises them. */
    private static void servedApis(StringBuilder b) {
        b.append("## Kafka APIs the companion broker serves\n\n")
                .append("As its ApiVersions answer advertises them (the ranges a Kafka 4.1.1 broker advertises; stable")
                .append(" versions only).\nAnything else is answered UNSUPPORTED_VERSION.\n\n")
                .append("| API | key | versions | served |\n|---|---|---|---|\n");
        for (ServedApis.Api api : ServedApis.all()) {
            b.append("| ")
                    .append(api.name())
                    .append(" | ")
                    .append(api.key())
                    .append(" | ")
                    .append(api.minVersion())
                    .append("-")
                    .append(api.maxVersion())
                    .append(" | ")
                    .append(api.when().isEmpty() ? "always" : api.when())
                    .append(" |\n");
        }
        b.append('\n');
    }

    private static void section(StringBuilder b, String title, CommandLine cl) {
        cl.setUsageHelpWidth(110);
        b.append("### ")
                .append(title)
                .append("\n\n```\n")
                .append(cl.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing())
                .append("\n```\n\n");
    }
}
