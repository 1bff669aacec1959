package dev.strait.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class MirrorTruncationTest {

    @Test
    void aCutNamesItsOffsetsPerPartition() {
        // When
        MirrorTruncation cut = MirrorTruncation.from(Map.of(
                        MirrorTruncation.ID_CONFIG, "failback-7",
                        MirrorTruncation.OFFSETS_CONFIG, "0:1200, 2:980"))
                .orElseThrow();

        // Then
        assertThat(cut.id()).isEqualTo("failback-7");
        assertThat(cut.offsetOf(0)).contains(1200L);
        assertThat(cut.offsetOf(1)).isEmpty();
        assertThat(cut.offsetOf(2)).contains(980L);
    }

    @Test
    void noCutWithoutAnIdOrOffsetsAndNoneFromAValueThatDoesNotParse() {
        assertThat(MirrorTruncation.from(Map.of(MirrorTruncation.OFFSETS_CONFIG, "0:1")))
                .isEmpty();
        assertThat(MirrorTruncation.from(Map.of(MirrorTruncation.ID_CONFIG, "x")))
                .isEmpty();
        assertThat(MirrorTruncation.from(Map.of(
                        MirrorTruncation.ID_CONFIG, "x",
                        MirrorTruncation.OFFSETS_CONFIG, "0:1,zero:2")))
                .isEmpty();
    }

    @Test
    void malformedOffsetsAreRefusedNamingThePair() {
        assertThatThrownBy(() -> MirrorTruncation.parseOffsets("0:10,1:-3"))
                .hasMessageContaining("'1:-3' is not partition:offset");
        assertThatThrownBy(() -> MirrorTruncation.parseOffsets("0:10,0:12")).hasMessageContaining("'0:12'");
        assertThatThrownBy(() -> MirrorTruncation.parseOffsets("5")).hasMessageContaining("'5'");
    }
}
