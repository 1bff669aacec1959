package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.PartitionMode;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;

class RouteTest {
    private static final byte[] KEY = "customer-42".getBytes(StandardCharsets.UTF_8);

    @Test
    void preserveKeepsTheSourcePartition() {
        assertThat(Route.partitionFor(PartitionMode.PRESERVE, 3, 8, KEY)).isEqualTo(3);
    }

    @Test
    void preserveFallsBackToTheKeyHashWhenTheTargetIsSmaller() {
        int expected = Utils.toPositive(Utils.murmur2(KEY)) % 2;

        assertThat(Route.partitionFor(PartitionMode.PRESERVE, 5, 2, KEY)).isEqualTo(expected);
        assertThat(Route.partitionFor(PartitionMode.PRESERVE, 5, 2, null)).isEqualTo(1);
    }

    @Test
    void hashUsesKafkasDefaultPartitionerFormula() {
        int expected = Utils.toPositive(Utils.murmur2(KEY)) % 6;

        assertThat(Route.partitionFor(PartitionMode.HASH, 0, 6, KEY)).isEqualTo(expected);
    }
}
