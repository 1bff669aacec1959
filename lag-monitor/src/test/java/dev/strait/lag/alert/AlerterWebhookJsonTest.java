package dev.strait.lag.alert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.strait.lag.http.StatusFormatJsonTest;
import dev.strait.lag.status.Status;
import dev.strait.testkit.WebhookReceiver;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

    /** The body receivers parse today, byte for byte: the change, then the /status document as "detail". */
    @Test
    void keepsTheWireFormat() {
        try (WebhookReceiver hook = new WebhookReceiver()) {
            Alerter alerter = new Alerter("g", URI.create(hook.url()), 0);

            alerter.onStatus(StatusFormatJsonTest.status("t", Status.WARN), 1_000);
            alerter.onStatus(StatusFormatJsonTest.status("t", Status.STOP), 2_000);

            assertThat(hook.bodies())
                    .containsExactly(
                            "{\"group\":\"g\",\"previous\":null,\"status\":\"WARN\","
                                    + "\"detail\":{\"group\":\"g\",\"status\":\"WARN\",\"thresholdCrossed\":true,\"sampledAtMs\":1000,\"cycleMs\":7,\"sourceCalls\":2,\"targetCalls\":3,\"errors\":[\"t\"],\"warnings\":[\"t\"],\"partitions\":[{\"topic\":\"t\",\"partition\":3,\"targetTopic\":\"t\",\"status\":\"WARN\",\"reason\":\"t\",\"sourceStartOffset\":1,\"sourceEndOffset\":20,\"targetEndOffset\":18,\"committedOffset\":15,\"mirrorPosition\":16,\"lastMirroredSourceOffset\":17,\"exactLag\":2,\"committedLag\":5,\"consumerLag\":4,\"timeLagMs\":1500,\"thresholdCrossed\":true}]}}",
                            "{\"group\":\"g\",\"previous\":\"WARN\",\"status\":\"STOP\","
                                    + "\"detail\":{\"group\":\"g\",\"status\":\"STOP\",\"thresholdCrossed\":true,\"sampledAtMs\":1000,\"cycleMs\":7,\"sourceCalls\":2,\"targetCalls\":3,\"errors\":[\"t\"],\"warnings\":[\"t\"],\"partitions\":[{\"topic\":\"t\",\"partition\":3,\"targetTopic\":\"t\",\"status\":\"STOP\",\"reason\":\"t\",\"sourceStartOffset\":1,\"sourceEndOffset\":20,\"targetEndOffset\":18,\"committedOffset\":15,\"mirrorPosition\":16,\"lastMirroredSourceOffset\":17,\"exactLag\":2,\"committedLag\":5,\"consumerLag\":4,\"timeLagMs\":1500,\"thresholdCrossed\":true}]}}");
        }
    }

    /** A POST of application/json, as receivers (Slack-style hooks, Alertmanager bridges) expect. */
    @Test
    void postsJson() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/hook", ex -> {
            seen.add(ex.getRequestMethod() + " " + ex.getRequestHeaders().getFirst("Content-Type"));
            ex.sendResponseHeaders(204, -1);
            ex.close();
        });
        server.start();
        try {
            URI hook = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
            Alerter alerter = new Alerter("g", hook, 0);

            alerter.onStatus(StatusFormatJsonTest.status("t", Status.WARN), 1_000);

            assertThat(seen).containsExactly("POST application/json");
            assertThat(alerter.sent()).isEqualTo(1);
        } finally {
            server.stop(0);
        }
    }
}
