package dev.strait.cli;

import dev.strait.broker.security.LocalCa;
import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.time.Time;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.jspecify.annotations.Nullable;

/**
 * How the demo's clusters and clients are secured, or not ({@link #plain()}). Secured ({@code --secure}), both
 * companion clusters take SASL_SSL clients with SCRAM-SHA-512 and nothing else, certificates of a CA made at start
 * in the work directory, mutual TLS between their controllers, Kafka's StandardAuthorizer with
 * {@code allow.everyone.if.no.acl.found=false}; {@code User:broker} (replication, the controller wire) and
 * {@code User:admin} (the demo's own setup and checks) are the super users, and every tool runs as its own SCRAM
 * user with the ACLs docs/operating.md lists for it and nothing more. Passwords are made at random for each run,
 * kept in the work directory's client files (owner-only) and never printed.
 */
final class DemoSecurity implements AutoCloseable {
    static final String MECHANISM = "SCRAM-SHA-512";
    private static final String SYNC_TOPIC = dev.strait.mirror.config.SyncConfig.DEFAULT_SYNC_TOPIC;

    /** Who connects. Each secured principal is {@code User:<user>}. */
    enum Principal {
        ADMIN("admin", "the demo's setup and checks"),
        MIRROR("strait-mirror", "mirror"),
        LAG_MONITOR("strait-lag-monitor", "lag monitor"),
        CANARY("strait-canary", "canary"),
        FAILOVER("strait-failover", "strait failover"),
        LOAD("demo-producer", "load"),
        APP("demo-app", "the drill's application");

        final String user;
        final String role;

        Principal(String user, String role) {
            this.user = user;
            this.role = role;
        }
    }

    enum Side {
        SOURCE,
        TARGET
    }

    /** One ACL the demo grants. */
    record Grant(Principal principal, Side side, ResourceType type, String name, PatternType pattern, AclOperation op) {
        AclBinding binding() {
            return new AclBinding(
                    new ResourcePattern(type, name, pattern),
                    new AccessControlEntry("User:" + principal.user, "*", op, AclPermissionType.ALLOW));
        }
    }

    /** What a secured run has: the CA, the work directory and a password for every principal and the brokers. */
    private record Secrets(
            LocalCa ca, Path workDir, boolean ownsWorkDir, Map<Principal, String> passwords, String brokerPassword) {
        String password(Principal principal) {
            return Objects.requireNonNull(passwords.get(principal), () -> "no password made for " + principal);
        }
    }

    /** Null for a plain run. */
    private final @Nullable Secrets secrets;

    private DemoSecurity(@Nullable Secrets secrets) {
        this.secrets = secrets;
    }

    static DemoSecurity plain() {
        return new DemoSecurity(null);
    }

    /**
     * Makes the CA, the brokers' certificate and a password for every principal in {@code workDir} (a new
     * temporary directory, deleted on close, when null).
     */
    static DemoSecurity secured(@Nullable Path workDir, Time time) {
        boolean owns = workDir == null;
        try {
            Path dir = workDir == null ? Files.createTempDirectory("strait-demo-secure-") : workDir;
            Files.createDirectories(dir);
            ownerOnly(dir, "rwx------");
            Map<Principal, String> passwords = new EnumMap<>(Principal.class);
            for (Principal p : Principal.values()) {
                passwords.put(p, password());
            }
            LocalCa ca = LocalCa.create(
                    dir.resolve("tls"), password(), "Strait Demo", Instant.ofEpochMilli(time.milliseconds()), 2);
            ca.keyStore("broker");
            return new DemoSecurity(new Secrets(ca, dir, owns, passwords, password()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the demo's work directory", e);
        }
    }

    /** 128 random bits (UUID's secure random source) as 32 hex digits: safe in JAAS and SCRAM syntax. */
    private static String password() {
        return UUID.randomUUID().toString().replace("-", "")
                + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
    }

    boolean secured() {
        return secrets != null;
    }

    /** The broker settings of a secured cluster on {@code builder}; nothing for a plain one. */
    EmbeddedCluster.Builder configure(EmbeddedCluster.Builder builder) {
        Secrets s = secrets;
        if (s == null) {
            return builder;
        }
        builder.clientListener("SASL_SSL");
        s.ca().sslConfigs("", "broker").forEach(builder::brokerConfig);
        builder.brokerConfig("listener.security.protocol.map", "SASL_SSL:SASL_SSL,CONTROLLER:SSL")
                .brokerConfig("sasl.enabled.mechanisms", MECHANISM)
                .brokerConfig("sasl.mechanism.inter.broker.protocol", MECHANISM)
                .brokerConfig(
                        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", jaas("broker", s.brokerPassword()))
                // The users that must exist before any other can be made: replication's and the admin.
                .brokerConfig(
                        "strait.bootstrap.scram.credentials",
                        MECHANISM + "=[name=broker,password=" + s.brokerPassword() + "];" + MECHANISM + "=[name="
                                + Principal.ADMIN.user + ",password=" + s.password(Principal.ADMIN) + "]")
                // The controller wire: mutual TLS; the brokers' certificate CN=broker,O=... is User:broker.
                .brokerConfig("listener.name.controller.ssl.client.auth", "required")
                .brokerConfig(
                        "listener.name.controller.ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/,DEFAULT")
                .brokerConfig("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer")
                .brokerConfig("super.users", "User:broker;User:" + Principal.ADMIN.user)
                .brokerConfig("allow.everyone.if.no.acl.found", "false");
        return builder;
    }

    /** Kafka client settings for {@code principal} on the cluster at {@code bootstrap}. */
    Properties client(Principal principal, String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        Secrets s = secrets;
        if (s != null) {
            p.put("security.protocol", "SASL_SSL");
            p.put("sasl.mechanism", MECHANISM);
            p.put("sasl.jaas.config", jaas(principal.user, s.password(principal)));
            p.putAll(s.ca().trustConfigs(""));
        }
        return p;
    }

    /** {@link #client} for both clusters, each key under {@code source.} or {@code target.}. */
    Properties sourceAndTarget(Principal principal, String sourceBootstrap, String targetBootstrap) {
        Properties p = new Properties();
        client(principal, sourceBootstrap).forEach((k, v) -> p.put("source." + k, v));
        client(principal, targetBootstrap).forEach((k, v) -> p.put("target." + k, v));
        return p;
    }

    /** Admin client settings as a map, for {@link Admin#create(Map)}. */
    Map<String, Object> admin(String bootstrap) {
        Map<String, Object> m = new LinkedHashMap<>();
        client(Principal.ADMIN, bootstrap).forEach((k, v) -> m.put((String) k, v));
        return m;
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    /**
     * The ACLs of each tool: what docs/operating.md lists for the mirror (with its offset map and the drill
     * group's sync), the lag monitor, the canary and {@code strait failover}, for the demo's topics; the load and
     * the drill's application get what a producer and a consumer group need.
     */
    static List<Grant> grants(
            List<String> topics, String mirrorGroup, String canaryTopic, String appGroup, boolean drill) {
        String prefix = "demo.";
        for (String t : topics) {
            if (!t.startsWith(prefix)) {
                throw new IllegalArgumentException("the demo's topics start with " + prefix + ": " + t);
            }
        }
        String appTopic = topics.get(0);
        List<Grant> g = new ArrayList<>();
        // The mirror: fetch, commit, copy configs on the source; produce, create, read back on the target.
        add(g, Principal.MIRROR, Side.SOURCE, ResourceType.TOPIC, prefix, PatternType.PREFIXED, AclOperation.READ);
        add(
                g,
                Principal.MIRROR,
                Side.SOURCE,
                ResourceType.TOPIC,
                prefix,
                PatternType.PREFIXED,
                AclOperation.DESCRIBE_CONFIGS);
        add(g, Principal.MIRROR, Side.SOURCE, ResourceType.TOPIC, canaryTopic, PatternType.LITERAL, AclOperation.READ);
        add(
                g,
                Principal.MIRROR,
                Side.SOURCE,
                ResourceType.TOPIC,
                canaryTopic,
                PatternType.LITERAL,
                AclOperation.DESCRIBE_CONFIGS);
        add(g, Principal.MIRROR, Side.SOURCE, ResourceType.GROUP, mirrorGroup, PatternType.LITERAL, AclOperation.READ);
        for (String name : List.of(prefix, canaryTopic)) {
            PatternType pattern = name.equals(prefix) ? PatternType.PREFIXED : PatternType.LITERAL;
            for (AclOperation op : List.of(
                    AclOperation.WRITE, AclOperation.CREATE, AclOperation.DESCRIBE_CONFIGS, AclOperation.READ)) {
                add(g, Principal.MIRROR, Side.TARGET, ResourceType.TOPIC, name, pattern, op);
            }
        }
        for (AclOperation op : List.of(AclOperation.CREATE, AclOperation.WRITE, AclOperation.READ)) {
            add(g, Principal.MIRROR, Side.TARGET, ResourceType.TOPIC, SYNC_TOPIC, PatternType.LITERAL, op);
        }
        // The lag monitor.
        add(g, Principal.LAG_MONITOR, Side.SOURCE, ResourceType.TOPIC, prefix, PatternType.PREFIXED, AclOperation.READ);
        add(
                g,
                Principal.LAG_MONITOR,
                Side.SOURCE,
                ResourceType.GROUP,
                mirrorGroup,
                PatternType.LITERAL,
                AclOperation.DESCRIBE);
        add(g, Principal.LAG_MONITOR, Side.TARGET, ResourceType.TOPIC, prefix, PatternType.PREFIXED, AclOperation.READ);
        add(
                g,
                Principal.LAG_MONITOR,
                Side.TARGET,
                ResourceType.TOPIC,
                prefix,
                PatternType.PREFIXED,
                AclOperation.DESCRIBE_CONFIGS);
        // The canary.
        add(g, Principal.CANARY, Side.SOURCE, ResourceType.TOPIC, canaryTopic, PatternType.LITERAL, AclOperation.WRITE);
        add(
                g,
                Principal.CANARY,
                Side.SOURCE,
                ResourceType.TOPIC,
                canaryTopic,
                PatternType.LITERAL,
                AclOperation.CREATE);
        add(g, Principal.CANARY, Side.TARGET, ResourceType.TOPIC, canaryTopic, PatternType.LITERAL, AclOperation.READ);
        add(g, Principal.LOAD, Side.SOURCE, ResourceType.TOPIC, prefix, PatternType.PREFIXED, AclOperation.WRITE);
        if (!drill) {
            return g;
        }
        // The mirror syncs the drill's group: its offsets on the source, written on the target.
        add(g, Principal.MIRROR, Side.SOURCE, ResourceType.GROUP, appGroup, PatternType.LITERAL, AclOperation.DESCRIBE);
        add(g, Principal.MIRROR, Side.TARGET, ResourceType.GROUP, appGroup, PatternType.LITERAL, AclOperation.READ);
        // strait failover of the drill's group.
        add(
                g,
                Principal.FAILOVER,
                Side.SOURCE,
                ResourceType.GROUP,
                appGroup,
                PatternType.LITERAL,
                AclOperation.DESCRIBE);
        add(g, Principal.FAILOVER, Side.SOURCE, ResourceType.TOPIC, appTopic, PatternType.LITERAL, AclOperation.READ);
        add(g, Principal.FAILOVER, Side.TARGET, ResourceType.GROUP, appGroup, PatternType.LITERAL, AclOperation.READ);
        add(g, Principal.FAILOVER, Side.TARGET, ResourceType.TOPIC, appTopic, PatternType.LITERAL, AclOperation.READ);
        for (AclOperation op : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.CREATE)) {
            add(g, Principal.FAILOVER, Side.TARGET, ResourceType.TOPIC, SYNC_TOPIC, PatternType.LITERAL, op);
        }
        // The drill's application, on either side.
        for (Side side : Side.values()) {
            add(g, Principal.APP, side, ResourceType.TOPIC, appTopic, PatternType.LITERAL, AclOperation.READ);
            add(g, Principal.APP, side, ResourceType.GROUP, appGroup, PatternType.LITERAL, AclOperation.READ);
        }
        return g;
    }

    private static void add(
            List<Grant> g,
            Principal p,
            Side side,
            ResourceType type,
            String name,
            PatternType pattern,
            AclOperation op) {
        g.add(new Grant(p, side, type, name, pattern, op));
    }

    /**
     * Creates every tool's SCRAM user and its ACLs on both clusters as the admin, waits until each node enforces
     * them (a node applies them when it replays the metadata entry), and writes each principal's client settings
     * to {@code <work dir>/<user>.properties}.
     */
    void grant(EmbeddedCluster source, EmbeddedCluster target, List<Grant> grants, Time time) throws Exception {
        Secrets s = secrets;
        if (s == null) {
            return;
        }
        for (Side side : Side.values()) {
            EmbeddedCluster cluster = side == Side.SOURCE ? source : target;
            try (Admin admin = Admin.create(admin(cluster.bootstrapServers()))) {
                List<UserScramCredentialAlteration> users = new ArrayList<>();
                for (Principal p : Principal.values()) {
                    if (p != Principal.ADMIN) {
                        users.add(new UserScramCredentialUpsertion(
                                p.user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), s.password(p)));
                    }
                }
                admin.alterUserScramCredentials(users).all().get(30, TimeUnit.SECONDS);
                List<AclBinding> acls = grants.stream()
                        .filter(g -> g.side() == side)
                        .map(Grant::binding)
                        .toList();
                admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
            }
            awaitEveryNode(
                    cluster, grants.stream().filter(g -> g.side() == side).count(), time);
        }
        for (Principal p : Principal.values()) {
            Path file = s.workDir().resolve(p.user + ".properties");
            StringBuilder text = new StringBuilder("# " + p.role + " as User:" + p.user + " on the demo's source "
                    + "cluster (for the target put the target's bootstrap.servers: " + target.bootstrapServers()
                    + ")\n");
            new TreeMap<>(client(p, source.bootstrapServers()))
                    .forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
            Files.writeString(file, text, StandardCharsets.UTF_8);
            ownerOnly(file, "rw-------");
        }
    }

    /** Polls each node, bounded, until it lists {@code count} ACLs and every tool's user. */
    private void awaitEveryNode(EmbeddedCluster cluster, long count, Time time) throws Exception {
        long deadline = time.milliseconds() + 60_000;
        for (String node : cluster.bootstrapServers().split(",")) {
            try (Admin admin = Admin.create(admin(node))) {
                while (true) {
                    long acls = admin.describeAcls(AclBindingFilter.ANY)
                            .values()
                            .get(10, TimeUnit.SECONDS)
                            .size();
                    int users = admin.describeUserScramCredentials()
                            .all()
                            .get(10, TimeUnit.SECONDS)
                            .size();
                    if (acls >= count && users >= Principal.values().length) {
                        break;
                    }
                    if (time.milliseconds() > deadline) {
                        throw new IllegalStateException("node " + node + " lists " + acls + " of the demo's " + count
                                + " ACLs and " + users + " users after 60 s");
                    }
                    time.sleep(200);
                }
            }
        }
    }

    /** What the terminal says about security: the setup and each tool's principal, never a password. */
    void describe(PrintStream out, List<Grant> grants, int nodes) {
        Secrets s = secrets;
        if (s == null) {
            return;
        }
        out.printf(
                "secured: TLS (a CA made for this run: %s) + SASL %s on every client connection%s; ACLs on "
                        + "(StandardAuthorizer, allow.everyone.if.no.acl.found=false), super users User:broker and "
                        + "User:%s%n",
                s.ca().trustStore(),
                MECHANISM,
                nodes > 1 ? ", replication as User:broker over it, mutual TLS between controllers" : "",
                Principal.ADMIN.user);
        for (Principal p : Principal.values()) {
            if (p == Principal.ADMIN) {
                continue;
            }
            Map<String, List<String>> byResource = new LinkedHashMap<>();
            for (Grant g : grants) {
                if (g.principal() == p) {
                    String resource = g.side().name().toLowerCase(Locale.ROOT) + " "
                            + g.type().name().toLowerCase(Locale.ROOT) + " " + g.name()
                            + (g.pattern() == PatternType.PREFIXED ? "*" : "");
                    byResource.computeIfAbsent(resource, r -> new ArrayList<>()).add(g.op().name());
                }
            }
            if (byResource.isEmpty()) {
                continue;
            }
            out.printf("  %s runs as User:%s with the ACLs%n", p.role, p.user);
            out.printf(
                    "      %s%n",
                    byResource.entrySet().stream()
                            .map(e -> e.getKey() + " " + String.join(",", e.getValue()))
                            .collect(Collectors.joining("; ")));
        }
        out.printf(
                "  client settings of each user (passwords inside, readable by you only): %s/<user>.properties%n",
                s.workDir());
    }

    private static void ownerOnly(Path path, String permissions) throws IOException {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the directory's own permissions apply
        }
    }

    /** Deletes the work directory if the demo made it. */
    @Override
    public void close() {
        Secrets s = secrets;
        if (s == null || !s.ownsWorkDir()) {
            return;
        }
        try (Stream<Path> paths = Files.walk(s.workDir())) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // best effort: it is in the temporary directory
        }
    }
}
