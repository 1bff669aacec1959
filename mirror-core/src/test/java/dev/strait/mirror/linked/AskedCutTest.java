package dev.strait.mirror.linked;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AskedCutTest {

    @Test
    void aPromoteCutNamesItsStampAndOffsets() {
        assertThat(MirrorTopicCut.AskedCut.of("promote", "promote-20261203-041500", "0:36,2:7"))
                .hasValueSatisfying(cut -> {
                    assertThat(cut.id()).isEqualTo("promote-20261203-041500");
                    assertThat(cut.stamp()).isEqualTo("20261203-041500");
                    assertThat(cut.offsets()).isEqualTo(Map.of(0, 36L, 2, 7L));
                });
    }

    @Test
    void aCutOfAnotherKindOrNoneIsNotOneToReuse() {
        assertThat(MirrorTopicCut.AskedCut.of("promote", "failback-20261203-041500", "0:36"))
                .isEmpty();
        assertThat(MirrorTopicCut.AskedCut.of("promote", "", "")).isEmpty();
        assertThat(MirrorTopicCut.AskedCut.of("promote", "promote-", "0:36")).isEmpty();
        assertThat(MirrorTopicCut.AskedCut.of("promote", "promote-20261203-041500", " "))
                .isEmpty();
    }

    @Test
    void offsetsThatDoNotParseAreNotReused() {
        for (String bad : new String[] {"0", "0:x", "0:1,0:2", "a:1", "0:1,", ":5"}) {
            assertThat(MirrorTopicCut.AskedCut.of("promote", "promote-1", bad))
                    .as(bad)
                    .isEmpty();
        }
    }
}
