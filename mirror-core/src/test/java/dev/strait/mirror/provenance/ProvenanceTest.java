package dev.strait.mirror.provenance;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ProvenanceTest {

    @ParameterizedTest
    @CsvSource({
        "AbCdEfGhIjKlMnOpQrStUv, AbCdEfGhIjKlMnOpQrStUv, orders, 0, 0",
        "origin-cluster-id-xxxx, source-cluster-id-yyyy, prod.payments.v2, 17, 9223372036854775807",
        "o, s, t, 2147483647, 1"
    })
    void roundTrips(String origin, String source, String topic, int partition, long offset) {
        Provenance p = new Provenance(origin, source, topic, partition, offset);

        Provenance back = Provenance.decode(p.encode());

        assertThat(back).isEqualTo(p);
        assertThat(Provenance.originOf(p.encode())).isEqualTo(origin);
    }

    @Test
    void isCompactWhenOriginIsTheSource() {
        byte[] value = new Provenance("AbCdEfGhIjKlMnOpQrStUv", "AbCdEfGhIjKlMnOpQrStUv", "orders", 3, 123).encode();

        // 1 version + 1+22 origin + 1 empty source + 1+6 topic + 4 partition + 8 offset
        assertThat(value).hasSize(44);
    }

    @Test
    void garbageIsNotAProvenance() {
        assertThat(Provenance.decode(new byte[] {1, 2, 3})).isNull();
        assertThat(Provenance.decode(new byte[] {9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}))
                .isNull();
        assertThat(Provenance.decode(null)).isNull();
        assertThat(Provenance.originOf(new byte[] {1, 50})).isNull();
    }

    @Test
    void readsTheLastHeader() {
        RecordHeaders headers = new RecordHeaders();
        headers.add(Provenance.HEADER, new Provenance("a", "a", "t", 0, 1).encode());
        headers.add(Provenance.HEADER, new Provenance("b", "b", "t", 0, 2).encode());

        assertThat(Provenance.from(headers).offset()).isEqualTo(2);
        assertThat(Provenance.from(new RecordHeaders())).isNull();
    }
}
