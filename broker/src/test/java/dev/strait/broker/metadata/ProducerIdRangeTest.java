package dev.strait.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ProducerIdRangeTest {

    @Test
    void eachClusterStartsInARangeOfItsOwnFarAboveKafkasIds() {
        // Given
        Random random = new Random(42);
        Set<Long> firsts = new HashSet<>();

        // When
        for (int i = 0; i < 1000; i++) {
            firsts.add(ProducerIdRange.firstOfCluster(new UUID(random.nextLong(), random.nextLong())));
        }

        // Then: distinct, on a range boundary, at least one range up, and room for a full range below Long.MAX_VALUE
        assertThat(firsts).hasSize(1000).allSatisfy(first -> {
            assertThat(first % (1L << ProducerIdRange.RANGE_BITS)).isZero();
            assertThat(first).isGreaterThanOrEqualTo(1L << ProducerIdRange.RANGE_BITS);
            assertThat(Long.MAX_VALUE - first).isGreaterThan(1L << ProducerIdRange.RANGE_BITS);
        });
    }
}
