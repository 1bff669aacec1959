package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.config.SyncSettings;
import dev.strait.mirror.config.TopicSyncSettings;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.Await;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.KafkaSecurity;
import dev.strait.testkit.TeeOutputStream;
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
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
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
    private static final Map<String, String> USERS = Map.of(
            MIRROR,
            "mirror-Secret-a41f",
            LAG,
            "lag-Secret-77c0",
            CANARY,
            "canary-Secret-3b9d",
            FAILOVER,
            "failover-Secret-e62a");
    private static final String WRONG_PASSWORD = "not-The-Password-0c4b";

    /** The shared mirror's group and topics: what the lag monitor watches and the canary probes through. */
    private static final String MIRROR_GROUP = "mirror-tools";

    private static final String ORDERS = "orders";
    private static final String CANARY_TOPIC = "strait-canary";
    private static final String SYNC_TOPIC = SyncSettings.DEFAULT_SYNC_TOPIC;

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
        CompletableFuture<KafkaCluster> sourceStart = CompletableFuture.supplyAsync(() ->
                KafkaCluster.startSecured("tools-source", 1, KafkaSecurity.saslSsl("admin", ADMIN_PASSWORD, USERS)));
        CompletableFuture<KafkaCluster> targetStart = CompletableFuture.supplyAsync(() ->
                KafkaCluster.startSecured("tools-target", 1, KafkaSecurity.saslSsl("admin", ADMIN_PASSWORD, USERS)));
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
    }

    private record Run(int code, String out, String err) {}

    /** {@code bin/strait} in its own JVM, as an operator runs it. */
    private Run strait(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
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
        Properties consumer = source.clientProperties(MIRROR, USERS.get(MIRROR));
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = target.clientProperties(MIRROR, USERS.get(MIRROR));
        MirrorSettings.Builder b = MirrorSettings.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(500);
        if (syncGroups != null) {
            b.sync(new SyncSettings(
                    GroupFilter.of(syncGroups, null, "--groups", "--groups.exclude"),
                    500,
                    true,
                    SYNC_TOPIC,
                    TopicSyncSettings.defaults()));
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

    private static long sum(Map<Integer, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }
}
