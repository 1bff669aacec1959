package dev.strait.broker.metadata;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A failback's cut of a mirror topic, read from its configs: where each named partition's log must end, and the
 * id that makes each replica apply it once. A mirror topic that becomes a copy of its old target again (failback)
 * may hold records written after the failover that the other side never got: they are saved by the failback
 * elsewhere, and every replica then cuts its log where the two sides part, so the copy continues from there.
 * Immutable.
 *
 * @param id      names this cut; a replica records the last id it applied beside its log
 * @param offsets the offset each partition's log is cut to, by partition
 */
public record MirrorTruncation(String id, Map<Integer, Long> offsets) {
    /** The topic config that holds the cut, {@code partition:offset,...}. */
    public static final String OFFSETS_CONFIG = "strait.mirror.truncate.offsets";
    /** The topic config that names the cut. */
    public static final String ID_CONFIG = "strait.mirror.truncate.id";

    public MirrorTruncation {
        offsets = Map.copyOf(offsets);
    }

    /** The cut a topic's configs ask for; empty when they ask for none (only mirror topics are cut). */
    public static Optional<MirrorTruncation> from(Map<String, String> configs) {
        String id = configs.getOrDefault(ID_CONFIG, "").trim();
        String offsets = configs.getOrDefault(OFFSETS_CONFIG, "").trim();
        if (id.isEmpty() || offsets.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(new MirrorTruncation(id, parseOffsets(offsets)));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // refused when set; an old value that no longer parses is ignored
        }
    }

    /** The offset partition {@code partition} is cut to, if this cut names it. */
    public Optional<Long> offsetOf(int partition) {
        return Optional.ofNullable(offsets.get(partition));
    }

    /**
     * {@code partition:offset,...}, as the config holds it.
     *
     * @throws IllegalArgumentException naming the first malformed pair
     */
    public static Map<Integer, Long> parseOffsets(String value) {
        Map<Integer, Long> offsets = new TreeMap<>();
        if (value.isBlank()) {
            return offsets;
        }
        for (String pair : value.split(",")) {
            String trimmed = pair.trim();
            int colon = trimmed.indexOf(':');
            try {
                if (colon < 0) {
                    throw new NumberFormatException();
                }
                int partition = Integer.parseInt(trimmed.substring(0, colon));
                long offset = Long.parseLong(trimmed.substring(colon + 1));
                if (partition < 0 || offset < 0 || offsets.put(partition, offset) != null) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + trimmed + "' is not partition:offset (each partition once,"
                        + " both not negative), as in 0:1200,1:980");
            }
        }
        return offsets;
    }
}
