package dev.strait.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.strait.testkit.Docker;
import dev.strait.testkit.RequiresDocker;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;

/**
 * docker/compose.two-dc.yml with docker/compose.two-dc.secure.yml: both companion clusters SASL_SSL (SCRAM-SHA-512)
 * with certificates its init step made at {@code up}, ACLs on; the mirror, the lag monitor and the canary as their
 * own users. The first copy of the suite (exactly once and in order, every service healthy, lag monitor and canary
 * OK), read and written by the test as the stack's admin with the CA from the secrets volume; then a client without
 * credentials is refused, and none of the generated passwords is in any service's log. The crash and down/up part
 * is the plain stack's (TwoDatacenterStackIT): security changes neither Docker's restart policy nor the volumes.
 */
@RequiresDocker(strait = true, kafka = true)
class TwoDatacenterSecuredStackIT extends TwoDatacenterStackSuite {
    private static final Pattern PASSWORD = Pattern.compile("password[=:\"]*([0-9a-f]{32,})");

    private Properties admin;
    private String caPem;

    @Override
    String composeFile() {
        return "compose.two-dc.yml";
    }

    @Override
    List<String> overrides() {
        return List.of("compose.two-dc.secure.yml");
    }

    @Override
    boolean crashAndRestart() {
        return false;
    }

    @Override
    Map<String, Object> client(ComposeStack stack, String bootstrap) {
        if (admin == null) {
            admin = new Properties();
            try {
                admin.load(new StringReader(secret(stack, "admin-dc1.properties")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            caPem = secret(stack, "ca.pem");
        }
        Map<String, Object> client = new HashMap<>();
        admin.forEach((k, v) -> client.put((String) k, v));
        // The trust store's path is the volume's; the CA's certificate itself is enough.
        client.keySet().removeIf(k -> k.startsWith("ssl.truststore."));
        client.put("ssl.truststore.type", "PEM");
        client.put("ssl.truststore.certificates", caPem);
        client.put("bootstrap.servers", bootstrap);
        return client;
    }

    @Override
    void afterFirstCopy(ComposeStack stack) {
        assertThat(client(stack, stack.dc1Bootstrap()))
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        Map<String, Object> anonymous = new HashMap<>(client(stack, stack.dc1Bootstrap()));
        anonymous.remove("sasl.jaas.config");
        anonymous.put("security.protocol", "SSL");
        anonymous.put("request.timeout.ms", "5000");
        anonymous.put("default.api.timeout.ms", "10000");
        try (Admin refused = Admin.create(anonymous)) {
            assertThat(catchThrowable(() -> refused.listTopics().names().get(15, TimeUnit.SECONDS)))
                    .as("a client without SASL credentials is refused")
                    .isNotNull();
        }

        Set<String> passwords = new LinkedHashSet<>();
        Matcher m = PASSWORD.matcher(secret(stack, "broker.properties"));
        while (m.find()) {
            passwords.add(m.group(1));
        }
        assertThat(passwords).as("the store's and the 5 users' passwords").hasSize(6);
        for (String service : List.of(
                "secure-init",
                "secure-acls",
                "dc1-broker",
                "dc1-broker-2",
                "dc1-broker-3",
                "dc2-broker",
                "mirror",
                "lag-monitor",
                "canary")) {
            String log = stack.logs(service);
            for (String password : passwords) {
                assertThat(log).as("a password in the log of " + service).doesNotContain(password);
            }
        }
        assertThat(stack.logs("secure-acls")).contains("secure-acls: done");
    }

    /** A file of the stack's secrets volume, read by a container of the Strait image that mounts it. */
    private static String secret(ComposeStack stack, String file) {
        return Docker.check(
                Duration.ofSeconds(60),
                List.of(
                        "docker",
                        "run",
                        "--rm",
                        "--network",
                        "none",
                        "-v",
                        stack.project() + "_secrets:/s:ro",
                        "--entrypoint",
                        "cat",
                        Docker.straitImage(),
                        "/s/" + file));
    }
}
