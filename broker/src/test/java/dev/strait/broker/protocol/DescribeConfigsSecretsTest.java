package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.server.BrokerSettings;
import dev.strait.settings.Setting;
import org.junit.jupiter.api.Test;

/** DescribeConfigs on a broker reports every secret setting as sensitive, without its value. */
class DescribeConfigsSecretsTest {

    @Test
    void everyPasswordSettingOfTheTableIsSensitive() {
        for (Setting<?> setting : BrokerSettings.all()) {
            if (setting.sensitive()) {
                String key = setting.scope() == Setting.Scope.LISTENER_MECHANISM
                        ? "listener.name.sasl_ssl.scram-sha-512." + setting.name()
                        : setting.name();
                assertThat(TopicAdminHandler.isSensitive(key)).as(key).isTrue();
                if (setting.scope() == Setting.Scope.LISTENER) {
                    assertThat(TopicAdminHandler.isSensitive("listener.name.controller." + key))
                            .as(key)
                            .isTrue();
                }
            }
        }
        assertThat(TopicAdminHandler.isSensitive("num.io.threads")).isFalse();
    }
}
