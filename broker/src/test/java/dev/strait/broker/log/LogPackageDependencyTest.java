package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The log package must not depend on kafka-clients (its record classes are not public API and move in Kafka
 * 4.3), nor read the system clock directly. Until checkstyle's ImportControl runs in this build, this test
 * enforces both on the sources.
 */
class LogPackageDependencyTest {

    @Test
    void mainSourcesImportNothingFromKafkaAndUseTheInjectedClock() throws Exception {
        Path sources = Path.of("src/main/java/dev/strait/broker/log");
        assertThat(sources).isDirectory();
        List<String> violations = new ArrayList<>();
        try (Stream<Path> files = Files.list(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    boolean kafkaImport = line.startsWith("import org.apache.kafka");
                    boolean rawClock = line.contains("System.currentTimeMillis") && !file.endsWith("Time.java");
                    if (kafkaImport || rawClock) {
                        violations.add(file.getFileName() + ":" + (i + 1) + ": " + line.trim());
                    }
                }
            }
        }
        assertThat(violations).isEmpty();
    }
}
