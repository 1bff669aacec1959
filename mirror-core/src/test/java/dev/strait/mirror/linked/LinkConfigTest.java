package dev.strait.mirror.linked;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicConfigFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.settings.ConfigException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class LinkConfigTest {
    @Test
    void theBrokersReachTheSourceAtTheConsumerConfigsServersUnlessOverridden() {
        LinkConfig plain = LinkConfig.of(base().build(), null);
        LinkConfig overridden = LinkConfig.of(base().build(), "kafka-1:9092, kafka-2:9092");

        assertThat(plain.sourceBootstrapServers()).isEqualTo("127.0.0.1:9092");
        assertThat(overridden.sourceBootstrapServers()).isEqualTo("kafka-1:9092,kafka-2:9092");
        assertThat(plain.mirrorGroup()).isEqualTo("mirror");
        assertThat(plain.topics().matcher("orders").matches()).isTrue();
        assertThat(plain.topics().matcher("__consumer_offsets").matches()).isFalse();
    }

    @Test
    void newTopicsAreLookedForAsOftenAsTheOrdinaryMirrorRefreshesItsMetadata() {
        Properties c = consumer();
        c.put("metadata.max.age.ms", "2000");

        assertThat(LinkConfig.of(base().build(), null).discoveryIntervalMs()).isEqualTo(30_000);
        assertThat(LinkConfig.of(base().consumerConfig(c).build(), null).discoveryIntervalMs())
                .isEqualTo(2000);
    }

    @Test
    void optionsThatChangeRecordsPartitionsOrTopicNamesAreRefused() {
        assertRefused(base().renamer(TopicRenamer.of("dr.", null)), "--topic.prefix");
        assertRefused(base().renamer(TopicRenamer.of(null, "a(.*)=b$1")), "--topic.rename");
        assertRefused(base().partitionMode(PartitionMode.HASH), "--partition.mode=hash");
        assertRefused(base().provenanceHeaders(false), "--provenance.headers=false");
        assertRefused(base().messageHandler(record -> java.util.List.of()), "--message.handler");
    }

    @Test
    void aclSyncIsKept() {
        LinkConfig withAcls = LinkConfig.of(
                base().sync(new SyncConfig(
                                null,
                                5000,
                                true,
                                "__strait_sync",
                                new TopicSyncConfig(true, true, true, 60_000, TopicConfigFilter.defaults())))
                        .build(),
                null);
        assertThat(withAcls.topicSync().acls()).isTrue();
    }

    @Test
    void aSourceReachedOverAnythingButPlaintextIsRefused() {
        Properties c = consumer();
        c.put("security.protocol", "sasl_ssl");

        assertThatThrownBy(() -> LinkConfig.of(base().consumerConfig(c).build(), null))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.protocol=SASL_SSL")
                .hasMessageContaining("--offset.preserving.link");
    }

    @Test
    void aBadSourceAddressForTheBrokersIsRefused() {
        assertThatThrownBy(() -> LinkConfig.of(base().build(), "kafka-1"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--offset.preserving.source.bootstrap")
                .hasMessageContaining("'kafka-1' is not host:port");
        assertThatThrownBy(() -> LinkConfig.of(base().build(), " , "))
                .hasMessageContaining("--offset.preserving.source.bootstrap is empty");
    }

    private static void assertRefused(MirrorConfig.Builder b, String flag) {
        assertThatThrownBy(() -> LinkConfig.of(b.build(), null))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("--offset.preserving")
                .hasMessageContaining(flag)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }

    private static MirrorConfig.Builder base() {
        Properties p = new Properties();
        p.put("bootstrap.servers", "127.0.0.1:9093");
        return MirrorConfig.builder()
                .consumerConfig(consumer())
                .producerConfig(p)
                .include(".*");
    }

    private static Properties consumer() {
        Properties c = new Properties();
        c.put("bootstrap.servers", "127.0.0.1:9092");
        c.put("group.id", "mirror");
        return c;
    }

    @Test
    void aLinkNamesASecuredSourceAndExcludesTheBootstrapOverride() {
        Properties c = new Properties();
        c.put("bootstrap.servers", "dc1-kafka:9093");
        c.put("group.id", "mirror");
        c.put("security.protocol", "SASL_SSL");

        LinkConfig linked = LinkConfig.of(base().consumerConfig(c).build(), null, "dc1");

        assertThat(linked.source()).isEqualTo(MirrorSource.link("dc1"));
        assertThat(linked.source().configs("id"))
                .containsEntry("strait.mirror.link", "dc1")
                .doesNotContainKey("strait.mirror.source.bootstrap.servers");
        assertThatThrownBy(() -> LinkConfig.of(base().consumerConfig(c).build(), "x:1", "dc1"))
                .hasMessageContaining("exclude each other");
        assertThatThrownBy(() -> LinkConfig.of(base().consumerConfig(c).build(), null, "dc 1"))
                .hasMessageContaining("is not a link name");
        assertThatThrownBy(() -> LinkConfig.of(base().consumerConfig(c).build(), null, null))
                .hasMessageContaining("--offset.preserving.link");
    }
}
