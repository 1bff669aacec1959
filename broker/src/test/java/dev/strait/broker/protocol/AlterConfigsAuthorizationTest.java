package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.security.AclAuthorizer;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/**
 * AlterConfigs and IncrementalAlterConfigs check the same permission (ALTER_CONFIGS on the topic, or on the
 * cluster for a broker) before anything else: without it a principal learns nothing, not even whether the topic
 * exists.
 */
class AlterConfigsAuthorizationTest {

    private static final ConfigResource TOPIC = new ConfigResource(ConfigResource.Type.TOPIC, "t");
    private static final ConfigResource BROKER = new ConfigResource(ConfigResource.Type.BROKER, "0");

    /** No ACL allows anything; the replica manager is never reached. */
    private final TopicAdminHandler handler = new TopicAdminHandler(
            () -> new BrokerEndpoint(0, "localhost", 9092),
            null,
            1,
            java.util.Map.of(),
            new RequestAuthorizer(() -> new AclAuthorizer(Set.of(), false, List.of())));

    @Test
    void bothApisRefuseATopicOrABrokerWithoutAlterConfigs() {
        for (ConfigResource resource : List.of(TOPIC, BROKER)) {
            Errors expected =
                    resource == TOPIC ? Errors.TOPIC_AUTHORIZATION_FAILED : Errors.CLUSTER_AUTHORIZATION_FAILED;

            AlterConfigsRequestData legacy = new AlterConfigsRequestData();
            legacy.resources()
                    .add(new AlterConfigsRequestData.AlterConfigsResource()
                            .setResourceType(resource.type().id())
                            .setResourceName(resource.name()));
            AlterConfigsResponse legacyResponse = (AlterConfigsResponse) handler.handleAlterConfigsRequest(
                    context(ApiKeys.ALTER_CONFIGS, (short) 2), new AlterConfigsRequest(legacy, (short) 2));

            IncrementalAlterConfigsRequestData incremental = new IncrementalAlterConfigsRequestData();
            incremental
                    .resources()
                    .add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
                            .setResourceType(resource.type().id())
                            .setResourceName(resource.name()));
            IncrementalAlterConfigsResponse incrementalResponse =
                    (IncrementalAlterConfigsResponse) handler.handleIncrementalAlterConfigsRequest(
                            context(ApiKeys.INCREMENTAL_ALTER_CONFIGS, (short) 1),
                            new IncrementalAlterConfigsRequest.Builder(incremental).build((short) 1));

            assertThat(legacyResponse.errors().get(resource).error())
                    .as("%s", resource)
                    .isEqualTo(expected);
            assertThat(incrementalResponse.data().responses().get(0).errorCode())
                    .as("%s", resource)
                    .isEqualTo(expected.code());
        }
    }

    private static RequestContext context(ApiKeys key, short version) {
        return new RequestContext(
                new RequestHeader(key, version, "test", 1),
                "conn",
                InetAddress.getLoopbackAddress(),
                new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "mallory"),
                ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT),
                SecurityProtocol.PLAINTEXT,
                ClientInformation.EMPTY,
                false);
    }
}
