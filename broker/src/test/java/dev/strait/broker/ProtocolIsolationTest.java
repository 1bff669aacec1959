package dev.strait.broker;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * kafka-clients' protocol classes ({@code common.requests}, {@code common.message}, {@code common.protocol},
 * {@code common.record}, and the {@code common.network} send machinery) are not public API and move in Kafka 4.3;
 * every use must stay in the adapter package {@code dev.strait.broker.protocol}. The log package imports nothing
 * from Kafka at all (see LogPackageDependencyTest). Until checkstyle's ImportControl runs here, this scans sources.
 */
class ProtocolIsolationTest {

    private static final List<String> INTERNAL_PACKAGES = List.of("org.apache.kafka.common.requests",
            "org.apache.kafka.common.message", "org.apache.kafka.common.protocol", "org.apache.kafka.common.record",
            "org.apache.kafka.common.network");
    private static final Path ROOT = Path.of("src/main/java/dev/strait/broker");

    @Test
    void onlyTheProtocolPackageUsesKafkaProtocolClasses() throws Exception {
        List<String> violations = new ArrayList<>();
        List<Path> scanned = new ArrayList<>();
        try (Stream<Path> files = Files.walk(ROOT)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                if (file.getParent().equals(ROOT.resolve("protocol"))) {
                    continue;
                }
                scanned.add(file);
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    for (String pkg : INTERNAL_PACKAGES) {
                        // imports, static imports and fully qualified uses alike
                        if (line.contains(pkg + ".")) {
                            violations.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + line.trim());
                        }
                    }
                }
            }
        }
        assertThat(scanned).as("sources scanned outside the adapter").hasSizeGreaterThan(20);
        assertThat(violations).isEmpty();
    }

    @Test
    void theProtocolPackageReallyIsTheAdapter() throws Exception {
        try (Stream<Path> files = Files.list(ROOT.resolve("protocol"))) {
            boolean usesRequests = false;
            for (Path file : files.toList()) {
                usesRequests |= Files.readString(file).contains("import org.apache.kafka.common.requests.");
            }
            assertThat(usesRequests).isTrue();
        }
    }
}
