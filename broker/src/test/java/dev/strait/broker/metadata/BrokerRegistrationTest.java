package dev.strait.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Issue 14: which endpoint of a broker the clients of a listener are told. */
class BrokerRegistrationTest {

    @Test
    void aBrokerAnswersWithTheEndpointOfTheListenerAskedAndIsLeftOutWithoutIt() {
        BrokerRegistration broker = new BrokerRegistration(
                1,
                "10.0.0.1",
                9094,
                false,
                List.of(
                        new BrokerRegistration.Endpoint("CLIENT", "client.example", 9092, "SASL_SSL"),
                        new BrokerRegistration.Endpoint("REPLICATION", "10.0.0.1", 9094, "SSL")));
        assertThat(broker.endpoint("CLIENT"))
                .map(BrokerRegistration.Endpoint::port)
                .hasValue(9092);
        assertThat(broker.endpoint("replication"))
                .map(BrokerRegistration.Endpoint::port)
                .hasValue(9094);
        assertThat(broker.endpoint("EXTERNAL")).isEmpty();
    }

    @Test
    void aRegistrationWithoutEndpointsAnswersWithItsOneListener() {
        BrokerRegistration legacy = new BrokerRegistration(2, "h2", 9092, false);
        assertThat(legacy.endpoint("ANY")).hasValue(new BrokerRegistration.Endpoint("ANY", "h2", 9092, ""));
    }
}
