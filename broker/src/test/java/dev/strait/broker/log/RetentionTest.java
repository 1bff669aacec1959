package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.ManualTime;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetentionTest {

    private static final long START_MS = 1_700_000_000_000L;
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path root;

    private final ManualTime time = new ManualTime(START_MS);
    private PartitionLog log;

    @AfterEach
    void closeLog() {
        if (log != null) {
            log.close();
        }
    }

    /** Six one-batch segments, written an hour apart (offsets 0 to 5); the last is the active one. */
    private TreeMap<Long, LogSegment> sixHourlySegments() {
        log = PartitionLog.open(root.resolve("orders-0"), LogConfig.defaults().withSegmentMs(HOUR_MS), time);
        for (int hour = 0; hour < 6; hour++) {
            log.append(TestBatches.batch(time.milliseconds(), "h" + hour), 0);
            time.advance(HOUR_MS);
        }
        TreeMap<Long, LogSegment> segments = new TreeMap<>();
        for (LogSegment segment : log.segments()) {
            segments.put(segment.baseOffset(), segment);
        }
        assertThat(segments).hasSize(6);
        return segments;
    }

    private static List<String> describe(List<Retention.Deletion> deletions) {
        return deletions.stream()
                .map(d -> d.segment().baseOffset()
                        + (d.expired() ? " expired" : "")
                        + (d.oversized() ? " oversized" : ""))
                .toList();
    }

    @Test
    void deletesTheOldestRunThatIsExpiredOrOversizedAndStopsAtTheFirstThatIsNeither() {
        // Given: six equal segments; three are older than 3 hours, and 2 segments' worth of bytes may stay
        TreeMap<Long, LogSegment> segments = sixHourlySegments();
        long segmentBytes = segments.firstEntry().getValue().sizeBytes();
        LogConfig config = LogConfig.defaults().withRetentionMs(3 * HOUR_MS).withRetentionBytes(2 * segmentBytes);

        // When
        List<Retention.Deletion> deletions = Retention.select(segments, config, 6, time.milliseconds());

        // Then
        assertThat(describe(deletions))
                .containsExactly("0 expired oversized", "1 expired oversized", "2 expired oversized", "3 oversized");
    }

    @Test
    void keepsSegmentsReachingAboveTheHighWatermarkAndTheActiveSegment() {
        // Given: everything has expired
        TreeMap<Long, LogSegment> segments = sixHourlySegments();
        LogConfig config = LogConfig.defaults().withRetentionMs(0);
        long nowMs = time.milliseconds();

        // Then: a segment's records must all be below the high watermark
        assertThat(describe(Retention.select(segments, config, 2, nowMs))).containsExactly("0 expired", "1 expired");
        // and the active segment stays even when everything is committed
        assertThat(Retention.select(segments, config, 6, nowMs)).hasSize(5);
        assertThat(Retention.select(segments, LogConfig.defaults().withRetentionMs(-1), 6, nowMs))
                .isEmpty();
    }
}
