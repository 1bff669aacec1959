package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The legacy, non-incremental AlterConfigs (API 33), which the 4.1.1 Admin no longer sends but older clients and
 * librdkafka do, sent with kafka-clients' own request classes on a raw socket: it replaces a topic's whole set of
 * dynamic configs, validateOnly changes nothing, and bad values, unknown topics and broker resources get the
 * errors IncrementalAlterConfigs gives. The result is read back with the 4.1.1 Admin.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class LegacyAlterConfigsIT {

    private static final long TIMEOUT_S = 30;
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder().start();
        admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    }

    @AfterAll
    static void stop() {
        if (admin != null) {
            admin.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aLegacyAlterReplacesEveryDynamicConfigOfTheTopic() throws Exception {
        createTopic("legacy-replace");
        incrementalSet("legacy-replace", Map.of("retention.ms", "1000000", "segment.bytes", "2000000"));

        ApiError error = legacyAlter(topic("legacy-replace"), Map.of("max.message.bytes", "20000"), false);

        assertThat(error.error()).as(error.toString()).isEqualTo(Errors.NONE);
        assertThat(dynamicConfigs("legacy-replace"))
                .as("the configs not named went back to their defaults")
                .isEqualTo(Map.of("max.message.bytes", "20000"));
        ConfigEntry retention = describe("legacy-replace").get("retention.ms");
        assertThat(retention.source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        assertThat(retention.value()).isEqualTo("604800000");

        assertThat(legacyAlter(topic("legacy-replace"), Map.of(), false).error())
                .isEqualTo(Errors.NONE);
        assertThat(dynamicConfigs("legacy-replace"))
                .as("an empty set clears them all")
                .isEmpty();
    }

    @Test
    void validateOnlyChangesNothing() throws Exception {
        createTopic("legacy-validate");
        incrementalSet("legacy-validate", Map.of("retention.ms", "1000000"));

        ApiError valid = legacyAlter(topic("legacy-validate"), Map.of("segment.ms", "60000"), true);
        ApiError invalid = legacyAlter(topic("legacy-validate"), Map.of("segment.ms", "soon"), true);

        assertThat(valid.error()).as(valid.toString()).isEqualTo(Errors.NONE);
        assertThat(invalid.error()).as(invalid.toString()).isEqualTo(Errors.INVALID_CONFIG);
        assertThat(dynamicConfigs("legacy-validate")).isEqualTo(Map.of("retention.ms", "1000000"));
    }

    @Test
    void refusalsAreThoseOfIncrementalAlterConfigsAndLeaveTheConfigsAlone() throws Exception {
        createTopic("legacy-refused");
        incrementalSet("legacy-refused", Map.of("retention.ms", "1000000"));
        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, "0");
        Map<String, Map<ConfigResource, Map<String, String>>> cases = Map.of(
                "bad value", Map.of(topic("legacy-refused"), Map.of("retention.ms", "forever")),
                "unknown config", Map.of(topic("legacy-refused"), Map.of("no.such.config", "1")),
                "unknown topic", Map.of(topic("legacy-nowhere"), Map.of("retention.ms", "1")),
                "broker config", Map.of(broker, Map.of("log.retention.ms", "1")));
        for (var entry : cases.entrySet()) {
            var resourceAndConfigs = entry.getValue().entrySet().iterator().next();
            ApiError legacy = legacyAlter(resourceAndConfigs.getKey(), resourceAndConfigs.getValue(), false);
            ApiError incremental = incrementalAlter(resourceAndConfigs.getKey(), resourceAndConfigs.getValue());
            assertThat(legacy.error()).as(entry.getKey() + ": " + legacy).isNotEqualTo(Errors.NONE);
            assertThat(legacy.error()).as(entry.getKey()).isEqualTo(incremental.error());
            assertThat(legacy.message()).as(entry.getKey()).isEqualTo(incremental.message());
        }
        assertThat(dynamicConfigs("legacy-refused")).isEqualTo(Map.of("retention.ms", "1000000"));
    }

    private static ConfigResource topic(String name) {
        return new ConfigResource(ConfigResource.Type.TOPIC, name);
    }

    private static void createTopic(String name) throws Exception {
        admin.createTopics(List.of(new NewTopic(name, 1, (short) 1))).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static void incrementalSet(String topic, Map<String, String> configs) throws Exception {
        Collection<AlterConfigOp> ops = configs.entrySet().stream()
                .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        admin.incrementalAlterConfigs(Map.of(topic(topic), ops)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static Map<String, ConfigEntry> describe(String topic) throws Exception {
        Config config = admin.describeConfigs(List.of(topic(topic)))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)
                .get(topic(topic));
        return config.entries().stream().collect(Collectors.toMap(ConfigEntry::name, e -> e));
    }

    private static Map<String, String> dynamicConfigs(String topic) throws Exception {
        return describe(topic).values().stream()
                .filter(e -> e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
                .collect(Collectors.toMap(ConfigEntry::name, ConfigEntry::value));
    }

    private static ApiError legacyAlter(ConfigResource resource, Map<String, String> configs, boolean validateOnly)
            throws Exception {
        List<AlterConfigsRequest.ConfigEntry> entries = configs.entrySet().stream()
                .map(e -> new AlterConfigsRequest.ConfigEntry(e.getKey(), e.getValue()))
                .toList();
        AlterConfigsRequest request = new AlterConfigsRequest.Builder(
                        Map.of(resource, new AlterConfigsRequest.Config(entries)), validateOnly)
                .build((short) 2);
        try (RawKafkaClient client = raw()) {
            AlterConfigsResponse response = (AlterConfigsResponse) client.call(request);
            return response.errors().get(resource);
        }
    }

    private static ApiError incrementalAlter(ConfigResource resource, Map<String, String> configs) throws Exception {
        var data = new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData();
        var alterable = new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource()
                .setResourceType(resource.type().id())
                .setResourceName(resource.name());
        configs.forEach((name, value) -> alterable
                .configs()
                .add(new org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig()
                        .setName(name)
                        .setValue(value)
                        .setConfigOperation(AlterConfigOp.OpType.SET.id())));
        data.resources().add(alterable);
        try (RawKafkaClient client = raw()) {
            IncrementalAlterConfigsResponse response = (IncrementalAlterConfigsResponse)
                    client.call(new IncrementalAlterConfigsRequest.Builder(data).build((short) 1));
            var result = response.data().responses().get(0);
            return new ApiError(Errors.forCode(result.errorCode()), result.errorMessage());
        }
    }

    private static RawKafkaClient raw() throws Exception {
        String[] hostPort = cluster.bootstrapServers().split(",")[0].split(":");
        return new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]));
    }
}
