package dev.strait.canary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.WebhookReceiver;
import java.net.URI;
import org.junit.jupiter.api.Test;

/** The canary's alerts without Kafka: what is posted, and what a suppressed repeat does not post. */
class CanaryAlerterTest {
    private static final ProbeTracker.Counts COUNTS = new ProbeTracker.Counts(10, 8, 1, 1, 0, 0, 1, 900);

    @Test
    void postsEachChangeWithTheStatusDocumentAsDetail() {
        try (WebhookReceiver hook = new WebhookReceiver()) {
            CanaryAlerter alerter = new CanaryAlerter("c1", URI.create(hook.url()), 0);

            alerter.changed(CanaryState.OK, CanaryState.LATE, 1_000, COUNTS, true, g -> {
                g.writeStartObject();
                g.writeStringField("state", "LATE");
                g.writeEndObject();
            });

            assertThat(hook.bodies())
                    .containsExactly(
                            "{\"canaryId\":\"c1\",\"previous\":\"OK\",\"state\":\"LATE\",\"detail\":{\"state\":\"LATE\"}}");
            assertThat(alerter.webhooksSent()).isEqualTo(1);
        }
    }

    @Test
    void aRepeatWithinTheSuppressionIsNotPosted() {
        try (WebhookReceiver hook = new WebhookReceiver()) {
            CanaryAlerter alerter = new CanaryAlerter("c1", URI.create(hook.url()), 60_000);

            alerter.changed(CanaryState.OK, CanaryState.LATE, 1_000, COUNTS, true, CanaryAlerterTest::empty);
            alerter.changed(CanaryState.LATE, CanaryState.OK, 2_000, COUNTS, true, CanaryAlerterTest::empty);
            alerter.changed(CanaryState.OK, CanaryState.LATE, 3_000, COUNTS, true, CanaryAlerterTest::empty);
            alerter.changed(CanaryState.LATE, CanaryState.LATE, 70_000, COUNTS, true, CanaryAlerterTest::empty);

            assertThat(hook.bodies()).hasSize(3);
            assertThat(hook.bodies().get(0)).contains("\"previous\":\"OK\",\"state\":\"LATE\"");
            assertThat(hook.bodies().get(1)).contains("\"previous\":\"LATE\",\"state\":\"OK\"");
            assertThat(hook.bodies().get(2)).contains("\"previous\":\"LATE\",\"state\":\"LATE\"");
            assertThat(alerter.webhooksSent()).isEqualTo(3);
        }
    }

    @Test
    void withoutAWebhookOnlyLogs() {
        CanaryAlerter alerter = new CanaryAlerter("c1", null, 0);

        alerter.changed(CanaryState.OK, CanaryState.LOST, 1_000, COUNTS, false, CanaryAlerterTest::empty);

        assertThat(alerter.webhooksSent()).isZero();
    }

    private static void empty(com.fasterxml.jackson.core.JsonGenerator g) throws java.io.IOException {
        g.writeStartObject();
        g.writeEndObject();
    }
}
