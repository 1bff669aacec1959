package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The mirrors' command lines and config files that the mirror modes share. */
class MirrorCommandsTest {
    @TempDir
    Path dir;

    @Test
    void straitRunsTheCheckoutsScriptWithTheModesFlagsBeforeJmxOff() throws Exception {
        // Given
        Path consumer = MirrorCommands.straitConsumerConfig(dir.resolve("c.properties"), "src:1", "g1");
        Path producer = MirrorCommands.straitProducerConfig(dir.resolve("p.properties"), "dst:2");

        // When
        List<String> cmd = MirrorCommands.strait(
                Path.of("/repo"), consumer, producer, "t", "--num.streams", "2", "--topic.prefix", "s.");

        // Then
        assertThat(cmd)
                .containsExactly(
                        "bash",
                        "/repo/bin/mirror-maker",
                        "--consumer.config",
                        consumer.toString(),
                        "--producer.config",
                        producer.toString(),
                        "--whitelist",
                        "t",
                        "--num.streams",
                        "2",
                        "--topic.prefix",
                        "s.",
                        "--jmx",
                        "false");
        assertThat(Files.readString(consumer))
                .isEqualTo("bootstrap.servers=src:1\ngroup.id=g1\nauto.offset.reset=earliest\n");
        assertThat(Files.readString(producer)).isEqualTo("bootstrap.servers=dst:2\n");
    }

    @Test
    void mm2ConfigHoldsTheFlowTheModesSettingsAndOneReplicaEach() throws Exception {
        // When
        Path config = MirrorCommands.mm2Config(
                dir.resolve("mm2.properties"), "src:1", "dst:2", "t", List.of("tasks.max=4", "a.b=c"));

        // Then
        String text = Files.readString(config);
        assertThat(text).endsWith("\n").doesNotContain("\n\n");
        Properties p = new Properties();
        p.load(new StringReader(text));
        assertThat(p)
                .hasSize(15)
                .containsEntry("clusters", "source,target")
                .containsEntry("source.bootstrap.servers", "src:1")
                .containsEntry("target.bootstrap.servers", "dst:2")
                .containsEntry("source->target.enabled", "true")
                .containsEntry("target->source.enabled", "false")
                .containsEntry("source->target.topics", "t")
                .containsEntry("tasks.max", "4")
                .containsEntry("a.b", "c")
                .containsEntry("replication.factor", "1")
                .containsEntry("config.storage.replication.factor", "1");
        assertThat(MirrorCommands.mm2("1G", config))
                .startsWith(BrokerNode.java(), "-Xms256M", "-Xmx1G", "-cp")
                .endsWith("org.apache.kafka.connect.mirror.MirrorMaker", config.toString());
    }
}
