package dev.strait.mirror.failover;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jspecify.annotations.Nullable;

/**
 * The admin clients of a failover or failback, with timeouts short enough that an unreachable cluster is
 * reported in seconds (the source is expected to be down). Not thread-safe.
 */
final class Connections implements AutoCloseable {
    static final long TIMEOUT_MS = 30_000;
    private static final long PROBE_MS = 15_000;

    private final List<Admin> opened = new ArrayList<>();

    /** An admin client for one side; {@code client} is passed through untouched (security settings included). */
    Admin admin(Properties client, String clientId) {
        Properties props = new Properties();
        for (String name : client.stringPropertyNames()) {
            if (AdminClientConfig.configNames().contains(name)) {
                props.put(name, client.getProperty(name));
            }
        }
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(TIMEOUT_MS));
        Admin admin = Admin.create(props);
        opened.add(admin);
        return admin;
    }

    /** The target's cluster id; a target that does not answer ends the command with what to check. */
    static String requireTarget(Admin targetAdmin, Properties target) {
        String id = clusterId(targetAdmin);
        if (id == null) {
            throw new FailoverException("cannot reach the target cluster at " + target.getProperty("bootstrap.servers")
                    + "; check target.bootstrap.servers and the target security settings");
        }
        return id;
    }

    /** The cluster id, or null when the cluster does not answer within a few seconds. */
    static @Nullable String clusterId(Admin admin) {
        try {
            return admin.describeCluster().clusterId().get(PROBE_MS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    public void close() {
        for (Admin a : opened) {
            a.close(Duration.ofSeconds(2));
        }
    }
}
