package dev.strait.canary;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The canary's webhook body is JSON a client can read back, whatever the canary id holds. */
class CanaryWebhookJsonTest {
    /** Quotes, backslash, every control character, non-ASCII and an HTML closing tag. */
    static String hostile() {
        StringBuilder b = new StringBuilder("id \"quoted\" back\\slash </script> é€😀 \u2028");
        for (char c = 0; c < 0x20; c++) {
            b.append(c);
        }
        return b.toString();
    }

    @Test
    void aHostileCanaryIdRoundTrips() throws Exception {
        String id = hostile();
        String body = CanaryFormat.webhook(id, CanaryState.OK, CanaryState.LATE, g -> {
            g.writeStartObject();
            g.writeStringField("canaryId", "x");
            g.writeEndObject();
        });

        JsonNode read = new ObjectMapper().readTree(body);

        assertThat(read.get("canaryId").textValue()).isEqualTo(id);
        assertThat(read.get("previous").textValue()).isEqualTo("OK");
        assertThat(read.get("state").textValue()).isEqualTo("LATE");
        assertThat(read.get("detail").get("canaryId").textValue()).isEqualTo("x");
        assertThat(body).startsWith("{\"canaryId\":");
    }

    /** The body receivers parse today, byte for byte: field names, their order, and the detail document inside. */
    @Test
    void keepsTheWireFormat() {
        String body = CanaryFormat.webhook("c1", CanaryState.LATE, CanaryState.LOST, g -> {
            g.writeStartObject();
            g.writeStringField("state", "LOST");
            g.writeEndObject();
        });

        assertThat(body)
                .isEqualTo(
                        "{\"canaryId\":\"c1\",\"previous\":\"LATE\",\"state\":\"LOST\",\"detail\":{\"state\":\"LOST\"}}");
    }
}
