package dev.strait.mirror.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.settings.ConfigException;
import org.junit.jupiter.api.Test;

class TopicConfigFilterTest {
    @Test
    void mirrorMaker2sExclusionsAndTieredStorageAreNeverCopied() {
        TopicConfigFilter f = TopicConfigFilter.defaults();
        for (String name : new String[] {
            "message.timestamp.type",
            "message.timestamp.difference.max.ms",
            "message.timestamp.before.max.ms",
            "message.timestamp.after.max.ms",
            "leader.replication.throttled.replicas",
            "follower.replication.throttled.replicas",
            "unclean.leader.election.enable",
            "min.insync.replicas",
            "remote.storage.enable",
            "remote.log.copy.disable",
            "local.retention.ms",
            "strait.mirror.source.bootstrap.servers",
            "strait.mirror.link",
            "strait.mirror.state"
        }) {
            assertThat(f.copies(name)).as(name).isFalse();
        }
        for (String name : new String[] {
            "retention.ms",
            "cleanup.policy",
            "max.message.bytes",
            "segment.bytes",
            "compression.type",
            "max.compaction.lag.ms"
        }) {
            assertThat(f.copies(name)).as(name).isTrue();
        }
    }

    @Test
    void usersAddTheirOwn() {
        TopicConfigFilter f = TopicConfigFilter.withExtra(" segment\\..* , max\\.compaction\\.lag\\.ms");
        assertThat(f.copies("segment.bytes")).isFalse();
        assertThat(f.copies("max.compaction.lag.ms")).isFalse();
        assertThat(f.copies("retention.ms")).isTrue();
        assertThatThrownBy(() -> TopicConfigFilter.withExtra("("))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--config.properties.exclude");
    }
}
