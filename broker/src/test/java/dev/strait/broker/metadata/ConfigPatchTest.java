package dev.strait.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigPatchTest {
    @Test
    void onlyTheKeysTheWriterChangedMoveAndAChangeMadeMeanwhileToOthersIsKept() {
        Map<String, String> read = Map.of("state", "mirroring", "retention.ms", "1000", "gone", "x");
        Map<String, String> meanwhile = Map.of("state", "paused", "retention.ms", "1000", "gone", "x", "other", "o");
        Map<String, String> wanted = Map.of("state", "mirroring", "retention.ms", "2000", "added", "a");

        assertThat(ConfigPatch.apply(meanwhile, read, wanted))
                .isEqualTo(Map.of("state", "paused", "retention.ms", "2000", "other", "o", "added", "a"));
    }

    @Test
    void aKeyBothChangedTakesTheLaterWriteAndAnUnchangedSetChangesNothing() {
        Map<String, String> read = Map.of("k", "1");
        Map<String, String> meanwhile = Map.of("k", "2");

        assertThat(ConfigPatch.apply(meanwhile, read, Map.of("k", "3"))).isEqualTo(Map.of("k", "3"));
        assertThat(ConfigPatch.apply(meanwhile, read, read)).isEqualTo(meanwhile);
        assertThat(ConfigPatch.apply(meanwhile, read, Map.of())).isEmpty();
    }
}
