package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.mirror.linked.LinkConfig;
import dev.strait.settings.ConfigException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code --offset.preserving} on the command line: what it accepts and the one-line refusals, without clusters. */
class MirrorCommandOffsetPreservingTest {
    @TempDir
    Path dir;

    private Path consumer;
    private Path producer;

    @BeforeEach
    void files() throws IOException {
        consumer = Files.writeString(dir.resolve("c.properties"), "bootstrap.servers=127.0.0.1:1\ngroup.id=g\n");
        producer = Files.writeString(dir.resolve("p.properties"), "bootstrap.servers=127.0.0.1:2\n");
    }

    @Test
    void theCompanionBrokersReachTheSourceAtTheConsumerConfigsServersOrTheOverride() {
        assertThat(linkSettings("--offset.preserving").sourceBootstrapServers()).isEqualTo("127.0.0.1:1");
        assertThat(linkSettings("--offset.preserving", "--offset.preserving.source.bootstrap", "kafka:9092")
                        .sourceBootstrapServers())
                .isEqualTo("kafka:9092");
    }

    @Test
    void optionsThatChangeRecordsOrTopicNamesAreRefused() {
        for (List<String> flags : List.of(
                List.of("--topic.prefix", "dr."),
                List.of("--topic.rename", "a(.*)=b$1"),
                List.of("--partition.mode", "hash"),
                List.of("--provenance.headers", "false"))) {
            List<String> args = new ArrayList<>(flags);
            args.add("--offset.preserving");
            assertThatThrownBy(() -> linkSettings(args.toArray(String[]::new)))
                    .as(flags.toString())
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(flags.get(0))
                    .hasMessageContaining("offsets");
        }
    }

    @Test
    void theSourceAddressForTheBrokersNeedsOffsetPreserving() {
        assertThatThrownBy(() -> command("--offset.preserving.source.bootstrap", "kafka:9092")
                        .settings())
                .isInstanceOf(ConfigException.class)
                .hasMessage("--offset.preserving.source.bootstrap needs --offset.preserving");
    }

    @Test
    void aRefusalIsOneLineOnStderrWithExitCodeTwoBeforeAnyClusterIsContacted() throws Exception {
        Files.writeString(
                consumer, "bootstrap.servers=127.0.0.1:1\ngroup.id=g\nsecurity.protocol=SSL\n", StandardCharsets.UTF_8);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream saved = System.err;
        int code;
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            code = Cli.execute(new MirrorCommand(), "mirror-maker", args("--offset.preserving"));
        } finally {
            System.setErr(saved);
        }

        String out = err.toString(StandardCharsets.UTF_8);
        assertThat(code).as(out).isEqualTo(Cli.BAD_INPUT);
        assertThat(out.strip().lines()).as(out).hasSize(1);
        assertThat(out).startsWith("mirror-maker: error: --offset.preserving needs a PLAINTEXT source");
    }

    @Test
    void helpDocumentsBothFlags() {
        String help = new CommandLine(new MirrorCommand()).getUsageMessage();

        assertThat(help).contains("--offset.preserving").contains("--offset.preserving.source.bootstrap");
    }

    private LinkConfig linkSettings(String... extra) {
        return command(extra).linkSettings();
    }

    private MirrorCommand command(String... extra) {
        MirrorCommand cmd = new MirrorCommand();
        new CommandLine(cmd).parseArgs(args(extra));
        return cmd;
    }

    private String[] args(String... extra) {
        List<String> all = new ArrayList<>(List.of(
                "--consumer.config",
                consumer.toString(),
                "--producer.config",
                producer.toString(),
                "--whitelist",
                "x"));
        all.addAll(List.of(extra));
        return all.toArray(String[]::new);
    }
}
