package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import dev.strait.canary.Canary;
import dev.strait.canary.CanaryConfig;
import dev.strait.canary.CanaryState;
import dev.strait.lag.LagMonitor;
import dev.strait.lag.audit.Auditor;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.failover.Failback;
import dev.strait.mirror.failover.FailbackPlan;
import dev.strait.mirror.failover.FailoverConfig;
import dev.strait.mirror.failover.FailoverException;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.KafkaSecurity;
import dev.strait.testkit.TeeOutputStream;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lag monitor (with its continuous audit), the canary and {@code strait failover} between two Apache Kafka
 * 4.1.1 clusters secured as production ones are (SASL_SSL, SCRAM-SHA-512, StandardAuthorizer, no ACL means no
 * access), each as its own principal holding exactly the ACLs docs/operating.md lists for it, configured with
 * the {@code source.}/{@code target.}-prefixed client settings of its file. Taking one of those ACLs away
 * gives an error that names what is missing. One pair of clusters and one mirror serve every test.
 */
class SecuredToolsIT {
    private static final String ADMIN_PASSWORD = "admin-Secret-5d1e";
    private static final String MIRROR = "strait-mirror";
    private static final String LAG = "strait-lag";
    private static final String CANARY = "strait-canary";
    private static final String FAILOVER = "strait-failover";
    private static final String FAILBACK = "strait-failback";
    private static final Map<String, String> USERS = Map.of(
            MIRROR,
            "mirror-Secret-a41f",
            LAG,
            "lag-Secret-77c0",
            CANARY,
            "canary-Secret-3b9d",
            FAILOVER,
            "failover-Secret-e62a",
            FAILBACK,
            "failback-Secret-19d8");
    /** Clients of the clusters' mTLS listener: their principals are {@code User:CN=<name>}. */
    private static final String MIRROR_TLS = "strait-mirror-tls";

    private static final String LAG_TLS = "strait-lag-tls";
    private static final String WRONG_PASSWORD = "not-The-Password-0c4b";

    /** The shared mirror's group and topics: what the lag monitor watches and the canary probes through. */
    private static final String MIRROR_GROUP = "mirror-tools";

    private static final String ORDERS = "orders";
    private static final String CANARY_TOPIC = "strait-canary";
    private static final String SYNC_TOPIC = SyncConfig.DEFAULT_SYNC_TOPIC;

    private static KafkaCluster source;
    private static KafkaCluster target;
    private static MirrorEngine mirror;
    private static PrintStream originalErr;
    private static PrintStream originalOut;
    private static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();

    @TempDir
    Path dir;

    @BeforeAll
    static void startClustersAndMirror() throws Exception {
        originalErr = System.err;
        originalOut = System.out;
        System.setErr(new PrintStream(new TeeOutputStream(originalErr, LOG), true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(new TeeOutputStream(originalOut, LOG), true, StandardCharsets.UTF_8));
        CompletableFuture<KafkaCluster> sourceStart = CompletableFuture.supplyAsync(() -> KafkaCluster.startSecured(
                "tools-source",
                1,
                KafkaSecurity.saslSsl("admin", ADMIN_PASSWORD, USERS).withMtlsClients(MIRROR_TLS, LAG_TLS)));
        CompletableFuture<KafkaCluster> targetStart = CompletableFuture.supplyAsync(() -> KafkaCluster.startSecured(
                "tools-target",
                1,
                KafkaSecurity.saslSsl("admin", ADMIN_PASSWORD, USERS).withMtlsClients(MIRROR_TLS, LAG_TLS)));
        try {
            source = sourceStart.join();
        } finally {
            target = targetStart.join();
        }
        source.createTopic(ORDERS, 2);
        produce(source, ORDERS, 200, 2);
        // The mirror's documented ACLs for both mirrored topics, with its offset map (on by default).
        for (String topic : List.of(ORDERS, CANARY_TOPIC)) {
            grantMirror(topic);
        }
        grant(source, MIRROR, ResourceType.GROUP, MIRROR_GROUP, AclOperation.READ);
        grant(
                target,
                MIRROR,
                ResourceType.TOPIC,
                SYNC_TOPIC,
                AclOperation.CREATE,
                AclOperation.WRITE,
                AclOperation.READ);
        mirror = startMirror(MIRROR_GROUP, ORDERS + "|" + CANARY_TOPIC, null);
    }

    @AfterAll
    static void stopEverything() throws Exception {
        try {
            if (mirror != null) {
                stopMirror(mirror);
            }
            String log;
            synchronized (LOG) {
                log = LOG.toString(StandardCharsets.UTF_8);
            }
            assertThat(log).as("the tools logged something").contains("Canary secured probing");
            for (String password : USERS.values()) {
                assertThat(log).as("no password in the logs").doesNotContain(password);
            }
            assertThat(log).doesNotContain(ADMIN_PASSWORD).doesNotContain(WRONG_PASSWORD);
        } finally {
            System.setErr(originalErr);
            System.setOut(originalOut);
            if (source != null) {
                source.close();
            }
            if (target != null) {
                target.close();
            }
        }
    }

    /** The mirror's ACLs of docs/operating.md for one topic: READ on the target for the offset map's read-back. */
    private static void grantMirror(String topic) throws Exception {
        grant(source, MIRROR, ResourceType.TOPIC, topic, AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        grant(
                target,
                MIRROR,
                ResourceType.TOPIC,
                topic,
                AclOperation.WRITE,
                AclOperation.CREATE,
                AclOperation.DESCRIBE_CONFIGS,
                AclOperation.READ);
    }

    // ---------------------------------------------------------------------------------------------- lag monitor

    /** The lag monitor's ACLs of docs/operating.md. */
    private static void grantLagMonitor() throws Exception {
        grant(source, LAG, ResourceType.TOPIC, ORDERS, AclOperation.READ);
        grant(source, LAG, ResourceType.GROUP, MIRROR_GROUP, AclOperation.DESCRIBE);
        grant(target, LAG, ResourceType.TOPIC, ORDERS, AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
    }

    /** lag-monitor.properties as an operator writes it for secured clusters. */
    private static Properties lagMonitorFile(String sourcePassword) {
        Properties p = new Properties();
        p.putAll(prefixed("source.", source, LAG, sourcePassword));
        p.putAll(prefixed("target.", target, LAG, USERS.get(LAG)));
        p.put("mirror.group.id", MIRROR_GROUP);
        p.put("topics", ORDERS);
        p.put("window.size", "2");
        p.put("sample.interval.ms", "500");
        // A round every cycle, so one cycle shows whether the audit can read both clusters.
        p.put("audit.interval.ms", "1");
        return p;
    }

    @Test
    void lagMonitorAndItsAuditRunWithExactlyTheDocumentedAcls() throws Exception {
        // Given: the mirror has copied and committed everything
        grantLagMonitor();
        Await.until(
                "200 records mirrored and committed",
                Duration.ofSeconds(90),
                () -> sum(source.committedOffsets(MIRROR_GROUP, ORDERS)) == 200);

        // When
        AtomicReference<GroupStatus> last = new AtomicReference<>();
        try (LagMonitor monitor = new LagMonitor(LagMonitorConfig.from(lagMonitorFile(USERS.get(LAG))), Time.SYSTEM)) {
            Await.until("status OK, exact lag 0 and an audit round", Duration.ofSeconds(90), () -> {
                GroupStatus s = monitor.cycle();
                last.set(s);
                return s.status() == Status.OK
                        && !s.snapshot().failed()
                        && s.snapshot().partitions().size() == 2
                        && s.snapshot().partitions().stream().allMatch(p -> p.exactLag() == 0)
                        && monitor.auditSummary().recordsAudited() >= 200;
            });

            // Then
            GroupStatus s = last.get();
            assertThat(s.snapshot().errors()).isEmpty();
            assertThat(s.snapshot().warnings()).as("every read succeeded").isEmpty();
            assertThat(s.snapshot().partitions())
                    .extracting(PartitionLag::committedLag)
                    .containsOnly(0L);
            ContinuousAudit.Summary audit = monitor.auditSummary();
            assertThat(audit.findingsByKind()).as("a clean audit").isEmpty();
            assertThat(audit.recordsAudited()).isEqualTo(200);
        }

        // Each ACL is needed: without it the lag monitor says which operation on which resource it lacks.
        revoke(source, LAG, ResourceType.GROUP, MIRROR_GROUP, AclOperation.DESCRIBE);
        try {
            String errors = cycleUntil(
                    s -> s.snapshot().failed(),
                    s -> String.join(" | ", s.snapshot().errors()));
            assertThat(errors)
                    .contains("the source cluster denied the lag monitor's principal (source. settings) "
                            + "DESCRIBE on group " + MIRROR_GROUP)
                    .contains("--operation Describe --group " + MIRROR_GROUP)
                    .doesNotContain("\n");
        } finally {
            grant(source, LAG, ResourceType.GROUP, MIRROR_GROUP, AclOperation.DESCRIBE);
        }
        revoke(target, LAG, ResourceType.TOPIC, ORDERS, AclOperation.READ);
        try {
            String warnings = cycleUntil(
                    s -> !s.snapshot().warnings().isEmpty(),
                    s -> String.join(" | ", s.snapshot().warnings()));
            assertThat(warnings)
                    .contains("target topic " + ORDERS + " is not visible on the target")
                    .contains("grant it READ on topic " + ORDERS + " on the target");
            LagMonitorConfig config = LagMonitorConfig.from(lagMonitorFile(USERS.get(LAG)));
            try (Auditor auditor =
                    new Auditor(config.sourceClient(), config.targetClient(), config.renamer(), Time.SYSTEM)) {
                AtomicReference<String> refused = new AtomicReference<>();
                Await.until("the audit refused", Duration.ofSeconds(60), () -> {
                    try {
                        auditor.audit(ORDERS, Map.of(0, new long[] {0, 10}));
                        return false;
                    } catch (IllegalStateException e) {
                        refused.set(e.getMessage());
                        return true;
                    }
                });
                System.out.println("audit without READ on the target topic: " + refused.get());
                assertThat(refused.get())
                        .contains("the target cluster denied the lag monitor's principal (target. "
                                + "settings) READ on topic " + ORDERS)
                        .contains("--operation Read --topic " + ORDERS);
            }
        } finally {
            grant(target, LAG, ResourceType.TOPIC, ORDERS, AclOperation.READ);
        }
        revoke(source, LAG, ResourceType.TOPIC, ORDERS, AclOperation.READ);
        try {
            String warnings = cycleUntil(
                    s -> !s.snapshot().warnings().isEmpty(),
                    s -> String.join(" | ", s.snapshot().warnings()));
            assertThat(warnings)
                    .contains("no source topic matches topics=" + ORDERS)
                    .contains("may not DESCRIBE");
        } finally {
            grant(source, LAG, ResourceType.TOPIC, ORDERS, AclOperation.READ);
        }
    }

    /** Cycles a fresh lag monitor until {@code done}; returns {@code text} of that cycle's status. */
    private static String cycleUntil(
            java.util.function.Predicate<GroupStatus> done, java.util.function.Function<GroupStatus, String> text)
            throws Exception {
        try (LagMonitor monitor = new LagMonitor(LagMonitorConfig.from(lagMonitorFile(USERS.get(LAG))), Time.SYSTEM)) {
            AtomicReference<GroupStatus> last = new AtomicReference<>();
            Await.until("the lag monitor reports the missing ACL", Duration.ofSeconds(60), () -> {
                last.set(monitor.cycle());
                return done.test(last.get());
            });
            String out = text.apply(last.get());
            System.out.println("lag monitor with an ACL missing: " + out);
            return out;
        }
    }

    @Test
    void aWrongPasswordIsOneLineWithoutThePassword() throws Exception {
        try (LagMonitor monitor = new LagMonitor(LagMonitorConfig.from(lagMonitorFile(WRONG_PASSWORD)), Time.SYSTEM)) {
            GroupStatus s = monitor.cycle();
            assertThat(s.status()).isEqualTo(Status.ERR);
            assertThat(s.snapshot().errors()).hasSize(1);
            assertThat(s.snapshot().errors().get(0))
                    .startsWith("source cluster: ")
                    .contains("SaslAuthenticationException")
                    .contains("invalid credentials")
                    .doesNotContain("\n")
                    .doesNotContain(WRONG_PASSWORD);
        }
    }

    // ------------------------------------------------------------------------------------------------------ mTLS

    @Test
    void theMirrorAndTheLagMonitorAuthenticateWithCertificatesAndTheDocumentedAcls() throws Exception {
        // Given: the mirror's and the lag monitor's ACLs of docs/operating.md, for the principals of their
        // certificates (SSL listener, ssl.client.auth=required, Kafka's default mapping: User:CN=<name>)
        String topic = "payments";
        String group = "mirror-payments";
        String mirrorPrincipal = "CN=" + MIRROR_TLS;
        String lagPrincipal = "CN=" + LAG_TLS;
        assertThat(KafkaSecurity.mtlsPrincipal(MIRROR_TLS)).isEqualTo("User:" + mirrorPrincipal);
        source.createTopic(topic, 2);
        produce(source, topic, 100, 2);
        grant(source, mirrorPrincipal, ResourceType.TOPIC, topic, AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        grant(source, mirrorPrincipal, ResourceType.GROUP, group, AclOperation.READ);
        grant(
                target,
                mirrorPrincipal,
                ResourceType.TOPIC,
                topic,
                AclOperation.WRITE,
                AclOperation.CREATE,
                AclOperation.DESCRIBE_CONFIGS,
                AclOperation.READ);
        grant(
                target,
                mirrorPrincipal,
                ResourceType.TOPIC,
                SYNC_TOPIC,
                AclOperation.CREATE,
                AclOperation.WRITE,
                AclOperation.READ);
        grant(source, lagPrincipal, ResourceType.TOPIC, topic, AclOperation.READ);
        grant(source, lagPrincipal, ResourceType.GROUP, group, AclOperation.DESCRIBE);
        grant(target, lagPrincipal, ResourceType.TOPIC, topic, AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);

        // When
        MirrorEngine engine = startMirror(
                group, topic, null, source.mtlsClientProperties(MIRROR_TLS), target.mtlsClientProperties(MIRROR_TLS));
        AtomicReference<GroupStatus> last = new AtomicReference<>();
        try {
            Await.until(
                    "100 records mirrored and committed",
                    Duration.ofSeconds(90),
                    () -> sum(source.committedOffsets(group, topic)) == 100 && target.endOffsetSum(topic) == 100);
            Properties file = mtlsLagMonitorFile(
                    source.mtlsClientProperties(LAG_TLS), target.mtlsClientProperties(LAG_TLS), group, topic);
            try (LagMonitor monitor = new LagMonitor(LagMonitorConfig.from(file), Time.SYSTEM)) {
                Await.until("status OK, exact lag 0 and an audit round", Duration.ofSeconds(90), () -> {
                    GroupStatus s = monitor.cycle();
                    last.set(s);
                    return s.status() == Status.OK
                            && s.snapshot().partitions().size() == 2
                            && s.snapshot().partitions().stream().allMatch(p -> p.exactLag() == 0)
                            && monitor.auditSummary().recordsAudited() >= 100;
                });
                assertThat(monitor.auditSummary().findingsByKind())
                        .as("a clean audit")
                        .isEmpty();
            }
        } finally {
            stopMirror(engine);
        }

        // Then
        assertThat(engine.failure()).isNull();
        assertThat(last.get().snapshot().errors()).isEmpty();
        assertThat(last.get().snapshot().warnings()).as("every read succeeded").isEmpty();
        for (int p = 0; p < 2; p++) {
            assertThat(values(target, topic, p)).isEqualTo(values(source, topic, p));
        }

        // A certificate the source does not trust: one line, no stack trace
        Properties untrusted = mtlsLagMonitorFile(
                source.mtlsClientProperties(KafkaSecurity.UNTRUSTED_CLIENT),
                target.mtlsClientProperties(LAG_TLS),
                group,
                topic);
        try (LagMonitor monitor = new LagMonitor(LagMonitorConfig.from(untrusted), Time.SYSTEM)) {
            GroupStatus s = monitor.cycle();
            System.out.println(
                    "lag monitor with an untrusted certificate: " + s.snapshot().errors());
            assertThat(s.status()).isEqualTo(Status.ERR);
            assertThat(s.snapshot().errors()).hasSize(1);
            assertThat(s.snapshot().errors().get(0))
                    .startsWith("source cluster: ")
                    .contains("SslAuthenticationException")
                    .doesNotContain("\n");
        }
    }

    /** lag-monitor.properties for certificate logins: the SSL listener's settings, source./target.-prefixed. */
    private static Properties mtlsLagMonitorFile(
            Properties sourceClient, Properties targetClient, String group, String topic) {
        Properties p = new Properties();
        for (String name : sourceClient.stringPropertyNames()) {
            p.put("source." + name, sourceClient.getProperty(name));
        }
        for (String name : targetClient.stringPropertyNames()) {
            p.put("target." + name, targetClient.getProperty(name));
        }
        assertThat(p.stringPropertyNames())
                .contains(
                        "source.security.protocol",
                        "source.ssl.keystore.location",
                        "source.ssl.keystore.password",
                        "source.ssl.key.password",
                        "source.ssl.truststore.location");
        p.put("mirror.group.id", group);
        p.put("topics", topic);
        p.put("window.size", "2");
        p.put("sample.interval.ms", "500");
        p.put("audit.interval.ms", "1");
        return p;
    }

    // ---------------------------------------------------------------------------------------------------- canary

    @Test
    void canaryProbesThroughTheMirrorWithExactlyTheDocumentedAcls() throws Exception {
        // Given: the canary's ACLs of docs/operating.md; it creates its topic itself
        grant(source, CANARY, ResourceType.TOPIC, CANARY_TOPIC, AclOperation.CREATE, AclOperation.WRITE);
        grant(target, CANARY, ResourceType.TOPIC, CANARY_TOPIC, AclOperation.READ);
        Properties p = new Properties();
        p.putAll(prefixed("source.", source, CANARY, USERS.get(CANARY)));
        p.putAll(prefixed("target.", target, CANARY, USERS.get(CANARY)));
        p.put("topic", CANARY_TOPIC);
        p.put("partitions", "1");
        p.put("interval.ms", "1000");
        p.put("alarm.threshold.ms", "60000");
        p.put("canary.id", "secured");

        // When
        try (Canary canary = new Canary(CanaryConfig.from(p), new MetricRegistry(), Time.SYSTEM)) {
            canary.start();

            // Then
            Await.until(
                    "a probe read back from the target",
                    Duration.ofSeconds(90),
                    () -> canary.counts().arrived() >= 1);
            assertThat(canary.state()).isEqualTo(CanaryState.OK);
            assertThat(canary.produceErrors()).as(canary.lastProduceError()).isZero();
            assertThat(canary.targetTopicPresent()).isTrue();

            // Without WRITE the produce error names the topic
            revoke(source, CANARY, ResourceType.TOPIC, CANARY_TOPIC, AclOperation.WRITE);
            Await.until("a probe refused", Duration.ofSeconds(60), () -> canary.produceErrors() > 0);
            System.out.println("canary without WRITE: " + canary.lastProduceError());
            assertThat(canary.lastProduceError())
                    .contains("the source cluster denied the canary's principal (source. " + "settings) WRITE on topic "
                            + CANARY_TOPIC)
                    .contains("--operation Write --topic " + CANARY_TOPIC)
                    .doesNotContain("\n");
            canary.stopProbing();
        }
    }

    // -------------------------------------------------------------------------------------------------- failover

    @Test
    void failoverMovesTheGroupWithExactlyTheDocumentedAcls() throws Exception {
        // Given: a target topic that already holds 10 records, so source and target offsets differ by 10; an
        // application group at 60 of 100 on the source; a mirror syncing it (with its --groups ACLs)
        String topic = "ledger";
        String app = "app-ledger";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        produce(target, topic, 10, 1);
        produce(source, topic, 100, 1);
        try (Admin admin = source.admin()) {
            admin.alterConsumerGroupOffsets(app, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(60)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        grantMirror(topic);
        grant(source, MIRROR, ResourceType.GROUP, "mirror-ledger", AclOperation.READ);
        // --groups: read the application group's offsets on the source, write them on the target
        grant(source, MIRROR, ResourceType.GROUP, app, AclOperation.DESCRIBE);
        grant(target, MIRROR, ResourceType.GROUP, app, AclOperation.READ);
        MirrorEngine ledgerMirror = startMirror("mirror-ledger", topic, app);
        try {
            Await.until(
                    "the group synced to the target",
                    Duration.ofSeconds(90),
                    () -> target.committedOffsets(app, topic).getOrDefault(0, -1L) == 70);
        } finally {
            stopMirror(ledgerMirror);
        }
        assertThat(ledgerMirror.failure()).isNull();
        // The target group is put back, so only the failover can move it to 70 again.
        try (Admin admin = target.admin()) {
            admin.alterConsumerGroupOffsets(app, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(0)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        // The failover principal's ACLs of docs/operating.md
        grant(source, FAILOVER, ResourceType.GROUP, app, AclOperation.DESCRIBE);
        grant(source, FAILOVER, ResourceType.TOPIC, topic, AclOperation.READ);
        grant(target, FAILOVER, ResourceType.GROUP, app, AclOperation.READ);
        grant(target, FAILOVER, ResourceType.TOPIC, topic, AclOperation.READ);
        // CREATE: --execute makes sure the sync topic exists before it records the failover point there
        grant(
                target,
                FAILOVER,
                ResourceType.TOPIC,
                SYNC_TOPIC,
                AclOperation.READ,
                AclOperation.WRITE,
                AclOperation.CREATE);
        Properties file = new Properties();
        file.putAll(prefixed("source.", source, FAILOVER, USERS.get(FAILOVER)));
        file.putAll(prefixed("target.", target, FAILOVER, USERS.get(FAILOVER)));
        Path config = dir.resolve("failover.properties");
        try (var w = Files.newBufferedWriter(config)) {
            file.store(w, null);
        }

        // When: a dry run, then the real thing
        Run dry = strait("failover", "--config", config.toString(), "--groups", app, "--json");
        assertThat(dry.code()).as(dry.out() + dry.err()).isZero();
        assertThat(dry.out())
                .contains("\"group\":\"" + app + "\"")
                .contains("\"offset\":70,\"currentOffset\":0")
                .contains("\"exact\":true")
                .contains("\"warnings\":[]");
        Run exec = strait("failover", "--config", config.toString(), "--groups", app, "--execute");
        assertThat(exec.code()).as(exec.out() + exec.err()).isZero();
        assertThat(exec.out()).contains("moved 1 of 1 groups").doesNotContain("could not");

        // Then
        assertThat(target.committedOffsets(app, topic)).isEqualTo(Map.of(0, 70L));
        for (Run r : List.of(dry, exec)) {
            assertThat(r.out() + r.err()).doesNotContain(USERS.get(FAILOVER)).doesNotContain("Exception:\n");
        }

        // Without READ on the group on the target, --execute says so and exits 1
        revoke(target, FAILOVER, ResourceType.GROUP, app, AclOperation.READ);
        grant(target, FAILOVER, ResourceType.GROUP, app, AclOperation.DESCRIBE);
        Run denied = strait("failover", "--config", config.toString(), "--groups", app, "--execute");
        System.out.println("failover without READ on the target group: " + denied.out() + denied.err());
        assertThat(denied.code()).as(denied.out() + denied.err()).isEqualTo(1);
        assertThat(denied.out())
                .contains("NOT moved: " + app)
                .contains("denied the principal of the target. settings READ on group " + app)
                .contains("--operation Read --group " + app);
        assertThat(target.committedOffsets(app, topic)).isEqualTo(Map.of(0, 70L));

        failBack(topic, app);
    }

    /**
     * After the failover of {@code app} on {@code topic}: the application wrote 20 records on the target and read
     * 10 of them, and the source took 5 the mirror never copied. {@code strait failback} as its own principal with
     * the ACLs docs/operating.md lists copies the 20 back after the 5, and moves the group to the 5 it never read
     * (reading the copies of the 10 it read on the target again: it never skips a record, issue 21).
     */
    private void failBack(String topic, String app) throws Exception {
        // Given
        produceFrom(target, topic, "on-target-", 20);
        try (Admin admin = target.admin()) {
            admin.alterConsumerGroupOffsets(app, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(120)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        produceFrom(source, topic, "divergent-", 5);
        String reverseGroup = "strait-failback-" + source.clusterId();
        // The failback principal's ACLs of docs/operating.md
        grant(target, FAILBACK, ResourceType.TOPIC, topic, AclOperation.READ);
        grant(target, FAILBACK, ResourceType.TOPIC, SYNC_TOPIC, AclOperation.READ, AclOperation.WRITE);
        grant(target, FAILBACK, ResourceType.GROUP, app, AclOperation.DESCRIBE);
        grant(target, FAILBACK, ResourceType.GROUP, reverseGroup, AclOperation.READ);
        grant(
                source,
                FAILBACK,
                ResourceType.TOPIC,
                topic,
                AclOperation.READ,
                AclOperation.WRITE,
                AclOperation.DESCRIBE_CONFIGS);
        grant(source, FAILBACK, ResourceType.GROUP, app, AclOperation.READ);
        Properties file = new Properties();
        file.putAll(prefixed("source.", source, FAILBACK, USERS.get(FAILBACK)));
        file.putAll(prefixed("target.", target, FAILBACK, USERS.get(FAILBACK)));
        Path config = dir.resolve("failback.properties");
        try (var w = Files.newBufferedWriter(config)) {
            file.store(w, null);
        }

        // Each grant is needed: without DESCRIBE on the group on the target the group is invisible there (a
        // warning says what to grant); without WRITE on the source topic the copy stops with one line naming it,
        // having written nothing.
        FailoverConfig cfg = FailoverConfig.load(config);
        GroupFilter apps = GroupFilter.of(app, null, "--groups", "--groups.exclude");
        revoke(target, FAILBACK, ResourceType.GROUP, app, AclOperation.DESCRIBE);
        try (Failback failback = new Failback(cfg, Time.SYSTEM)) {
            FailbackPlan plan = failback.plan(apps);
            System.out.println("failback without DESCRIBE on the target group: " + plan.warnings());
            assertThat(plan.groups()).isEmpty();
            assertThat(plan.warnings())
                    .anySatisfy(w -> assertThat(w)
                            .contains("no consumer group on the target matches --groups " + app)
                            .contains("--operation Describe --group"));
        } finally {
            grant(target, FAILBACK, ResourceType.GROUP, app, AclOperation.DESCRIBE);
        }
        revoke(source, FAILBACK, ResourceType.TOPIC, topic, AclOperation.WRITE);
        try (Failback failback = new Failback(cfg, Time.SYSTEM)) {
            FailbackPlan plan = failback.plan(apps);
            assertThatThrownBy(() -> failback.execute(plan, apps, false, Duration.ofSeconds(90)))
                    .isInstanceOf(FailoverException.class)
                    .satisfies(e -> System.out.println("failback without WRITE on the source topic: " + e.getMessage()))
                    .hasMessageNotContaining("\n")
                    .hasMessageContaining("the source cluster denied the principal of the source. settings WRITE on "
                            + "topic " + topic)
                    .hasMessageContaining("--operation Write --topic " + topic);
        } finally {
            grant(source, FAILBACK, ResourceType.TOPIC, topic, AclOperation.WRITE);
        }
        assertThat(source.endOffsetSum(topic)).as("nothing copied back").isEqualTo(105);

        // When
        Run dry = strait("failback", "--config", config.toString(), "--groups", app, "--json");
        System.out.println("failback dry run: " + dry.out() + dry.err());
        assertThat(dry.code()).as(dry.out() + dry.err()).isZero();
        Run exec = strait("failback", "--config", config.toString(), "--groups", app, "--execute");
        System.out.println("failback: " + exec.out() + exec.err());
        assertThat(exec.code()).as(exec.out() + exec.err()).isZero();

        // Then: the 5 divergent records stay before the 20 copied back; the group resumes at the divergent records
        List<String> values = values(source, topic);
        assertThat(values).hasSize(125);
        assertThat(values.subList(100, 105)).allMatch(v -> v.startsWith("divergent-"));
        List<String> back = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            back.add("on-target-" + i);
        }
        assertThat(values.subList(105, 125)).containsExactlyElementsOf(back);
        assertThat(source.committedOffsets(app, topic)).isEqualTo(Map.of(0, 100L));
        assertThat(exec.out()).contains("at the divergent records it never read (reads 10 copies again)");
        for (Run r : List.of(dry, exec)) {
            assertThat(r.out() + r.err()).doesNotContain(USERS.get(FAILBACK)).doesNotContain("Exception:\n");
        }
        assertThat(dry.out()).contains("\"warnings\":[]");
        assertThat(exec.err())
                .as("the documented ACLs cover the copy's config reads")
                .doesNotContain("Could not read max.message.bytes");
    }

    private record Run(int code, String out, String err) {}

    /** {@code bin/strait} in its own JVM, as an operator runs it. */
    private Run strait(String... args) throws Exception {
        List<String> cmd = MirrorProcess.java("-Xmx256m");
        cmd.addAll(List.of(
                "-Dlogback.configurationFile="
                        + Path.of("target", "classes", "logback.xml").toAbsolutePath(),
                "-cp",
                MirrorProcess.classPath(),
                Strait.class.getName()));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("strait " + String.join(" ", args) + " did not end in 180 s");
        }
        return new Run(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    // --------------------------------------------------------------------------------------------------- helpers

    /** The client settings of {@code user} with {@code prefix}, as a tool's properties file holds them. */
    private static Properties prefixed(String prefix, KafkaCluster cluster, String user, String password) {
        Properties client = cluster.clientProperties(user, password);
        Properties out = new Properties();
        for (String name : client.stringPropertyNames()) {
            out.put(prefix + name, client.getProperty(name));
        }
        // What the operating guide shows: the names below are exactly what the file needs.
        assertThat(out.stringPropertyNames())
                .contains(
                        prefix + "security.protocol",
                        prefix + "sasl.mechanism",
                        prefix + "sasl.jaas.config",
                        prefix + "ssl.truststore.location",
                        prefix + "ssl.truststore.password");
        return out;
    }

    private static MirrorEngine startMirror(String group, String include, String syncGroups) {
        return startMirror(
                group,
                include,
                syncGroups,
                source.clientProperties(MIRROR, USERS.get(MIRROR)),
                target.clientProperties(MIRROR, USERS.get(MIRROR)));
    }

    private static MirrorEngine startMirror(
            String group, String include, String syncGroups, Properties consumer, Properties producer) {
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        MirrorConfig.Builder b = MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(500);
        if (syncGroups != null) {
            b.sync(new SyncConfig(
                    GroupFilter.of(syncGroups, null, "--groups", "--groups.exclude"),
                    500,
                    true,
                    SYNC_TOPIC,
                    TopicSyncConfig.defaults()));
        }
        MirrorEngine engine = new MirrorEngine(b.build(), new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    private static void stopMirror(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(90)))
                .as("the mirror stops")
                .isTrue();
    }

    private static void grant(KafkaCluster cluster, String user, ResourceType type, String name, AclOperation... ops)
            throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createAcls(bindings(user, type, name, ops)).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void revoke(KafkaCluster cluster, String user, ResourceType type, String name, AclOperation... ops)
            throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.deleteAcls(bindings(user, type, name, ops).stream()
                            .map(AclBinding::toFilter)
                            .toList())
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private static List<AclBinding> bindings(String user, ResourceType type, String name, AclOperation... ops) {
        List<AclBinding> out = new ArrayList<>();
        for (AclOperation op : ops) {
            out.add(new AclBinding(
                    new ResourcePattern(type, name, PatternType.LITERAL),
                    new AccessControlEntry("User:" + user, "*", op, AclPermissionType.ALLOW)));
        }
        return out;
    }

    private static void produce(KafkaCluster cluster, String topic, int count, int partitions) {
        Properties props = cluster.clientProperties();
        props.put("acks", "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(
                        topic,
                        i % partitions,
                        ("k" + i).getBytes(StandardCharsets.UTF_8),
                        ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /** {@code count} records valued {@code prefix0..} on partition 0, as the admin. */
    private static void produceFrom(KafkaCluster cluster, String topic, String prefix, int count) {
        Properties props = cluster.clientProperties();
        props.put("acks", "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(
                        topic,
                        0,
                        ("k" + i).getBytes(StandardCharsets.UTF_8),
                        (prefix + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /** Partition 0's values in offset order, read as the admin. */
    private static List<String> values(KafkaCluster cluster, String topic) {
        return values(cluster, topic, 0);
    }

    private static List<String> values(KafkaCluster cluster, String topic, int partition) {
        List<String> out = new ArrayList<>();
        TopicPartition tp = new TopicPartition(topic, partition);
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                cluster.clientProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            Await.until("read " + topic + " on " + cluster.name(), Duration.ofSeconds(60), () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.add(new String(r.value(), StandardCharsets.UTF_8));
                }
                return consumer.position(tp) >= end;
            });
        }
        return out;
    }

    private static long sum(Map<Integer, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }
}
