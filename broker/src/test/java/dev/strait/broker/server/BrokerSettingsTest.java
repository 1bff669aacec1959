package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.security.AclAuthorizer;
import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.junit.jupiter.api.Test;

/** The settings table: what it accepts, how it refuses, and that it says what Kafka does. */
class BrokerSettingsTest {

    private static Map<String, String> node(String... keyValues) {
        Map<String, String> props = new HashMap<>();
        props.put("node.id", "0");
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put(keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    private static void assertRefused(Map<String, String> props, String message) {
        assertThatThrownBy(() -> BrokerConfig.from(props))
                .as("%s", props)
                .isInstanceOf(ConfigException.class)
                .hasMessage(message);
    }

    @Test
    void aBadValueIsOneLineNamingTheKeyTheValueAndWhatIsAllowed() {
        assertRefused(node("num.io.threads", "0"), "Invalid value 0 for configuration num.io.threads: must be >= 1");
        assertRefused(
                node("num.io.threads", "3000000000"),
                "Invalid value 3000000000 for configuration num.io.threads: must be <= 2147483647");
        assertRefused(
                node("offsets.topic.replication.factor", "40000"),
                "Invalid value 40000 for configuration offsets.topic.replication.factor: must be between 1 and 32767");
        assertRefused(
                node("auto.create.topics.enable", "yes"),
                "Invalid value yes for configuration auto.create.topics.enable: expected true or false");
        assertRefused(
                node("log.message.timestamp.type", "Now"),
                "Invalid value Now for configuration log.message.timestamp.type: expected CreateTime or LogAppendTime");
        assertRefused(
                node("log.cleanup.policy", "compact,archive"),
                "Invalid value compact,archive for configuration log.cleanup.policy: archive is not allowed: expected"
                        + " a list of delete or compact");
        assertRefused(
                node("sasl.enabled.mechanisms", "PLAIN,GSSAPI"),
                "Invalid value PLAIN,GSSAPI for configuration sasl.enabled.mechanisms: GSSAPI is not allowed: expected"
                        + " a list of PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (any case)");
        assertRefused(
                node("log.cleaner.io.max.bytes.per.second", "0.5"),
                "Invalid value 0.5 for configuration log.cleaner.io.max.bytes.per.second: must be >= 1");
        assertRefused(
                node("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"),
                "Invalid value kafka.security.authorizer.AclAuthorizer for configuration authorizer.class.name:"
                        + " expected (empty), org.apache.kafka.metadata.authorizer.StandardAuthorizer or"
                        + " dev.strait.broker.security.AclAuthorizer");
        assertRefused(
                node("unclean.leader.election.enable", "TRUE"),
                "Invalid value TRUE for configuration unclean.leader.election.enable: not supported: leaders are"
                        + " elected from the in-sync replicas only");
    }

    @Test
    void aRefusedValueWithALineBreakIsShownOnOneLine() {
        // A properties file's \n escape puts a line break inside a value; the refusal must stay one line.
        assertRefused(
                node("unclean.leader.election.enable", "tr\nue"),
                "Invalid value tr\\nue for configuration unclean.leader.election.enable: expected true or false");
        assertRefused(
                node("num.io.threads", "4\t\u00075"),
                "Invalid value 4\\t\\u00075 for configuration num.io.threads: not a number");
    }

    @Test
    void valuesAreTrimmedAndAllowedValuesMatchTheirCaseAsKafkas() {
        BrokerConfig config = BrokerConfig.from(node("num.io.threads", " 4 ", "log.cleaner.enable", "FALSE "));
        assertThat(config.numIoThreads()).isEqualTo(4);
        assertThat(config.logCleanerEnable()).isFalse();
        // Kafka's own values are case-sensitive where Kafka's are (timestamp type), not where it upper-cases.
        assertThatThrownBy(() -> BrokerConfig.from(node("log.message.timestamp.type", "createtime")))
                .hasMessageContaining("log.message.timestamp.type");
        assertThat(BrokerConfig.from(node(
                                "listeners",
                                "SASL_SSL://127.0.0.1:0",
                                "security.inter.broker.protocol",
                                "sasl_ssl",
                                "sasl.enabled.mechanisms",
                                "scram-sha-512"))
                        .securityProtocol())
                .isEqualTo("SASL_SSL");
    }

    @Test
    void aListenersOverrideIsCheckedAsTheSettingItOverrides() {
        assertRefused(
                node("listener.name.controller.ssl.client.auth", "maybe"),
                "Invalid value maybe for configuration listener.name.controller.ssl.client.auth: expected required,"
                        + " requested or none");
        assertRefused(
                node("listener.name.sasl_ssl.sasl.enabled.mechanisms", "OAUTHBEARER"),
                "Invalid value OAUTHBEARER for configuration listener.name.sasl_ssl.sasl.enabled.mechanisms:"
                        + " OAUTHBEARER is not allowed: expected a list of PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (any"
                        + " case)");
        assertThat(BrokerSettings.forKey("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config"))
                .contains(BrokerSettings.get("sasl.jaas.config"));
        assertThat(BrokerSettings.forKey("listener.name.controller.ssl.keystore.password"))
                .contains(BrokerSettings.get("ssl.keystore.password"));
        assertThat(BrokerSettings.forKey("listener.name.controller.num.io.threads"))
                .as("only per-listener settings take the prefix")
                .isEmpty();
        assertThat(BrokerSettings.forKey("sasl.jaas.config"))
                .as("the broker reads JAAS entries per listener and mechanism only")
                .isEmpty();
    }

    @Test
    void aKeyThatIsNoSettingIsIgnoredWithAOneLineWarningNamingTheSettingMeant() {
        assertThat(BrokerSettings.unknownWarning("num.io.thread"))
                .isEqualTo("ignoring unknown broker config 'num.io.thread'; did you mean 'num.io.threads'?");
        assertThat(BrokerSettings.unknownWarning("log.flush.interval.messages"))
                .isEqualTo("ignoring unknown broker config 'log.flush.interval.messages'");
        assertThat(BrokerSettings.unknownWarning("sasl.jaas.config"))
                .contains("listener.name.<listener>.<mechanism>.sasl.jaas.config");

        BrokerConfig config = BrokerConfig.from(node("log.flush.interval.messages", "1", "sasl.login.password", "x1"));

        assertThat(config.originals()).containsKey("log.flush.interval.messages");
        assertThat(config.toString())
                .contains("ignored=[log.flush.interval.messages, sasl.login.password]")
                .doesNotContain("x1");
    }

    @Test
    void passwordsNeverAppearInMessagesOrToString() {
        BrokerConfig config = BrokerConfig.from(node(
                "ssl.keystore.password", "ks-secret-1",
                "listener.name.controller.ssl.key.password", "key-secret-2",
                "listener.name.sasl_ssl.plain.sasl.jaas.config", "x required user_admin=\"jaas-secret-3\";",
                "strait.bootstrap.scram.credentials", "SCRAM-SHA-512=[name=admin,password=scram-secret-4]",
                "num.io.threads", "2"));

        assertThat(config.toString())
                .contains("ssl.keystore.password=[hidden]")
                .contains("listener.name.controller.ssl.key.password=[hidden]")
                .contains("num.io.threads=2")
                .doesNotContain("secret-");
        assertThatThrownBy(() -> BrokerConfig.from(node(
                        "strait.bootstrap.scram.credentials", "SCRAM-SHA-512=[name=admin,pasword=scram-secret-5]")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("Invalid value [hidden] for configuration strait.bootstrap.scram.credentials:")
                .hasMessageNotContaining("secret-5");
        for (Setting<?> setting : BrokerSettings.all()) {
            if (setting.name().contains("password") || setting.name().endsWith("jaas.config")) {
                assertThat(setting.sensitive()).as(setting.name()).isTrue();
            }
        }
    }

    /** Kafka's SslFactory applies the ssl.* settings, so the table must document Kafka's defaults, for every one. */
    @Test
    void theTlsSettingsAndDefaultsAreKafkas() {
        ConfigDef kafka = new ConfigDef();
        SslConfigs.addClientSslSupport(kafka);
        for (ConfigDef.ConfigKey key : kafka.configKeys().values()) {
            Setting<?> ours = BrokerSettings.get(key.name);
            assertThat(ours.scope()).as(key.name).isEqualTo(Setting.Scope.LISTENER);
            assertThat(ours.sensitive()).as(key.name).isEqualTo(key.type == ConfigDef.Type.PASSWORD);
            Object kafkaDefault = key.defaultValue instanceof List<?> list
                    ? (list.isEmpty()
                            ? null
                            : String.join(
                                    ",", list.stream().map(String::valueOf).toList()))
                    : key.defaultValue;
            assertThat(ours.defaultValue()).as(key.name).isEqualTo(kafkaDefault);
        }
        assertThat(BrokerSettings.get("ssl.client.auth").defaultValue())
                .isEqualTo(BrokerSecurityConfigs.SSL_CLIENT_AUTH_DEFAULT);
        assertThat(BrokerSettings.get("ssl.principal.mapping.rules").defaultValue())
                .isEqualTo(BrokerSecurityConfigs.DEFAULT_SSL_PRINCIPAL_MAPPING_RULES);
        assertThat(SecuritySettings.STRAIT_AUTHORIZER).isEqualTo(AclAuthorizer.class.getName());
        assertThat(SecuritySettings.KAFKA_STANDARD_AUTHORIZER).isEqualTo(AclAuthorizer.KAFKA_STANDARD_AUTHORIZER);
    }

    /** As Kafka: log.retention.hours=-1 (or minutes) keeps records for good; it used to become -3600000 ms. */
    @Test
    void aRetentionOfMinusOneHoursOrMinutesKeepsRecordsForGood() {
        assertThat(BrokerConfig.from(node("log.retention.hours", "-1")).topicDefaults())
                .containsEntry("retention.ms", "-1");
        assertThat(BrokerConfig.from(node("log.retention.minutes", "-1")).topicDefaults())
                .containsEntry("retention.ms", "-1");
        assertThat(BrokerConfig.from(node("log.retention.minutes", "3", "log.retention.hours", "-1"))
                        .topicDefaults())
                .as("minutes win over hours")
                .containsEntry("retention.ms", "180000");
        assertThat(BrokerConfig.from(node("log.retention.ms", "5", "log.retention.minutes", "3"))
                        .topicDefaults())
                .as("ms win over minutes")
                .containsEntry("retention.ms", "5");
    }

    @Test
    void theSecuredExampleFileIsValidAndUsesOnlyBrokerSettings() throws Exception {
        Path file = Path.of("..").toAbsolutePath().normalize().resolve("config").resolve("broker-secured.properties");
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            props.load(reader);
        }

        BrokerConfig config = BrokerConfig.from(props);

        assertThat(config.securityProtocol()).isEqualTo("SASL_SSL");
        assertThat(config.controllerSecurityProtocol()).isEqualTo("SSL");
        assertThat(config.controllerQuorumVoters()).containsOnlyKeys(1, 2, 3);
        assertThat(config.minInsyncReplicas()).isEqualTo(2);
        assertThat(props.stringPropertyNames())
                .allSatisfy(
                        key -> assertThat(BrokerSettings.forKey(key)).as(key).isPresent());
        assertThat(config.toString())
                .doesNotContain("changeit")
                .doesNotContain("broker-secret")
                .doesNotContain("admin-secret")
                .doesNotContain("ignored=");
    }
}
