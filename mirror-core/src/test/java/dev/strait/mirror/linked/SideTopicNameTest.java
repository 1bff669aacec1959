package dev.strait.mirror.linked;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SideTopicNameTest {
    private static final String STAMP = "20261203-071500";

    @Test
    void aTopicWithRoomKeepsItsNameInFull() {
        assertThat(MirrorTopicCut.sideTopic("orders", STAMP)).isEqualTo("orders.diverged-20261203-071500");
        String longest = "t".repeat(249 - ".diverged-".length() - STAMP.length());
        assertThat(MirrorTopicCut.sideTopic(longest, STAMP)).isEqualTo(longest + ".diverged-" + STAMP);
    }

    @Test
    void aLongTopicGetsALegalNameThatTellsItFromAnotherWithTheSamePrefix() {
        // Given: two 249-character names that differ only in their last character (the longest Kafka allows)
        String one = "a".repeat(248) + "1";
        String two = "a".repeat(248) + "2";

        // When
        String sideOne = MirrorTopicCut.sideTopic(one, STAMP);
        String sideTwo = MirrorTopicCut.sideTopic(two, STAMP);

        // Then: each fits Kafka's limit and charset, keeps the stamp, and they differ; the same name gives the same
        // side topic again (a re-run finds it)
        assertThat(sideOne).hasSize(249).matches("[a-zA-Z0-9._-]+").endsWith(".diverged-" + STAMP);
        assertThat(sideTwo).hasSize(249).matches("[a-zA-Z0-9._-]+").isNotEqualTo(sideOne);
        assertThat(MirrorTopicCut.sideTopic(one, STAMP)).isEqualTo(sideOne);
        assertThat(sideOne).startsWith("a".repeat(200));
    }
}
