package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Raft packages stay a pure state machine so that the simulation runs the production code: no Kafka
 * classes (the broker's protocol adapter maps messages), no other broker package, no threads, no sleeping, no
 * system clock. Until checkstyle's ImportControl runs in this build, this test enforces it on the sources.
 */
class RaftPackageDependencyTest {

    private static final List<String> BANNED = List.of("import org.apache.kafka", "import dev.strait.broker.log",
            "import dev.strait.broker.network", "import dev.strait.broker.protocol", "import dev.strait.broker.server",
            "import dev.strait.broker.replica", "import dev.strait.broker.group", "import dev.strait.broker.metadata",
            "System.currentTimeMillis", "System.nanoTime", "Thread", "Executor", "synchronized", "java.time.");

    @Test
    void mainSourcesArePureAndSingleThreaded() throws Exception {
        Path sources = Path.of("src/main/java/dev/strait/broker/raft");
        List<String> violations = new ArrayList<>();
        List<Path> scanned = new ArrayList<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                scanned.add(file);
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i);
                    for (String banned : BANNED) {
                        if (line.contains(banned) && !line.trim().startsWith("*")) {
                            violations.add(sources.relativize(file) + ":" + (i + 1) + ": " + line.trim());
                        }
                    }
                }
            }
        }
        assertThat(scanned).hasSizeGreaterThan(10);
        assertThat(violations).isEmpty();
    }
}
