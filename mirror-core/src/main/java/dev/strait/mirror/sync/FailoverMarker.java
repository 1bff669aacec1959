package dev.strait.mirror.sync;

import java.util.Map;

/**
 * Written by {@code strait failover --execute}: the end offset of each partition of a target topic when the
 * groups moved. Records above it were written on the target after the failover; {@code strait failback} copies
 * those back to the source and no others.
 */
public record FailoverMarker(String targetTopic, long timeMs, Map<Integer, Long> endOffsets) {
    public FailoverMarker {
        endOffsets = Map.copyOf(endOffsets);
    }
}
