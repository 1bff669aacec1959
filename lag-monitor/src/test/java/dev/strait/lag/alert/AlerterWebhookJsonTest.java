package dev.strait.lag.alert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.lag.http.StatusFormatJsonTest;
import dev.strait.lag.status.Status;
import dev.strait.testkit.WebhookReceiver;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lag monitor's webhook body is JSON a client can read back, whatever the group and topic names hold. */
class AlerterWebhookJsonTest {
    @Test
    void aHostileGroupAndTopicRoundTrip() throws Exception {
        String name = StatusFormatJsonTest.hostile();
        try (WebhookReceiver hook = new WebhookReceiver()) {
            Alerter alerter = new Alerter(name, URI.create(hook.url()), 0);

            alerter.onStatus(StatusFormatJsonTest.status(name, Status.WARN), 1_000);

            assertThat(hook.bodies()).hasSize(1);
            String body = hook.bodies().get(0);
            JsonNode read = new ObjectMapper().readTree(body);
            assertThat(read.get("group").textValue()).isEqualTo(name);
            assertThat(read.get("previous").isNull()).isTrue();
            assertThat(read.get("status").textValue()).isEqualTo("WARN");
            JsonNode detail = read.get("detail");
            assertThat(detail.get("group").textValue()).isEqualTo(name);
            assertThat(detail.get("partitions").get(0).get("topic").textValue()).isEqualTo(name);
            assertThat(List.of(body.substring(0, 9))).containsExactly("{\"group\":");
        }
    }
}
