package dev.strait.mirror.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.settings.ConfigException;
import org.junit.jupiter.api.Test;

class TopicRenamerTest {
    @Test
    void prefixes() {
        assertThat(TopicRenamer.of("nyc.", null).targetTopic("orders")).isEqualTo("nyc.orders");
    }

    @Test
    void rewritesMatchingNamesAndLeavesOthers() {
        TopicRenamer r = TopicRenamer.of(null, "prod\\.(.*)=dr.$1");

        assertThat(r.targetTopic("prod.orders")).isEqualTo("dr.orders");
        assertThat(r.targetTopic("staging.orders")).isEqualTo("staging.orders");
    }

    @Test
    void ruleThenPrefix() {
        assertThat(TopicRenamer.of("x.", "a(.*)=b$1").targetTopic("a1")).isEqualTo("x.b1");
    }

    @Test
    void identityByDefault() {
        assertThat(TopicRenamer.identity().targetTopic("t")).isEqualTo("t");
        assertThat(TopicRenamer.of(null, null).isIdentity()).isTrue();
    }

    @Test
    void rejectsBadRules() {
        assertThatThrownBy(() -> TopicRenamer.of(null, "noequals"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("PATTERN=REPLACEMENT");
        assertThatThrownBy(() -> TopicRenamer.of(null, "a[=b"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("regex");
        assertThatThrownBy(() -> TopicRenamer.of("bad prefix", null)).isInstanceOf(ConfigException.class);
    }
}
