package dev.strait.mirror.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.settings.ConfigException;
import org.junit.jupiter.api.Test;

class MirrorConfigTest {
    @Test
    void subscriptionNeverMatchesInternalTopics() {
        MirrorConfig s = MirrorConfig.builder()
                .consumerConfig(props("bootstrap.servers", "h:1", "group.id", "g"))
                .producerConfig(props("bootstrap.servers", "h:2"))
                .include(".*")
                .build();

        assertThat(s.subscription().matcher("orders").matches()).isTrue();
        assertThat(s.subscription().matcher("__consumer_offsets").matches()).isFalse();
        assertThat(s.subscription().matcher("__transaction_state").matches()).isFalse();
    }

    @Test
    void commaListsWorkAsInMirrorMaker1() {
        MirrorConfig.Builder b = MirrorConfig.builder().include("a,b");

        assertThat(b.consumerConfig(props("bootstrap.servers", "h:1", "group.id", "g"))
                        .producerConfig(props("bootstrap.servers", "h:2"))
                        .build()
                        .include()
                        .matcher("b")
                        .matches())
                .isTrue();
    }

    @Test
    void rejectsBadValues() {
        assertThatThrownBy(() -> MirrorConfig.builder().numStreams(0)).hasMessageContaining("--num.streams");
        assertThatThrownBy(() -> MirrorConfig.builder().include("a(")).hasMessageContaining("regex");
        assertThatThrownBy(() -> MirrorConfig.builder().offsetCommitIntervalMs(5))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> MirrorConfig.builder().targetReplicationFactor(0))
                .isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> MirrorConfig.builder().build()).hasMessageContaining("--consumer.config");
        assertThatThrownBy(() -> TruncationPolicy.parse("sometimes")).hasMessageContaining("--on.source.truncation");
    }

    private static java.util.Properties props(String... kv) {
        java.util.Properties p = new java.util.Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }
}
