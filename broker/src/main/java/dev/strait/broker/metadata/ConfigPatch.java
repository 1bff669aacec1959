package dev.strait.broker.metadata;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A writer's change to a topic's config overrides, as the difference between what it read ({@code base}) and what it
 * wants ({@code target}), applied to the overrides as they are when the change lands. Writers read the configs on
 * their own node and write the whole set back; applied as a whole, a set read before another node's write (a
 * failback's pause, a promote) would silently undo it. Applied as a difference, only the keys this writer changed
 * move, and a concurrent change to any other key survives. Two writers changing the same key: the later wins, as in
 * Kafka's controller.
 */
public final class ConfigPatch {
    private ConfigPatch() {}

    /** {@code current} with every key whose value differs between {@code base} and {@code target} set as in target. */
    public static Map<String, String> apply(
            Map<String, String> current, Map<String, String> base, Map<String, String> target) {
        Map<String, String> result = new LinkedHashMap<>(current);
        Set<String> keys = new HashSet<>(base.keySet());
        keys.addAll(target.keySet());
        for (String key : keys) {
            String wanted = target.get(key);
            if (Objects.equals(base.get(key), wanted)) {
                continue;
            }
            if (wanted == null) {
                result.remove(key);
            } else {
                result.put(key, wanted);
            }
        }
        return result;
    }
}
