package dev.strait.mirror.engine;

import java.util.Locale;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * How long after its last poll a stream may go on handing that poll's records to the producer. Past it the
 * group may have given the stream's partitions to another member, which copies them again from the last commit;
 * records handed over then would land between that member's copies (duplicates out of order).
 *
 * <p>A member keeps its partitions at least {@code max.poll.interval.ms} after a poll (its consumer leaves the
 * group only then) and, as long as its heartbeats stopped no earlier than one heartbeat interval before that poll,
 * {@code session.timeout.ms − heartbeat.interval.ms} after it (the whole process may have been paused, heartbeat
 * thread included). The deadline is half of the smaller, so that copies handed over just before it reach the
 * target before the group could finish giving the partitions away. Immutable.
 */
final class HandOverDeadline {
    /** The broker's defaults of group.consumer.session.timeout.ms and group.consumer.heartbeat.interval.ms. */
    private static final long CONSUMER_PROTOCOL_SESSION_MS = 45_000;

    private static final long CONSUMER_PROTOCOL_HEARTBEAT_MS = 5_000;

    private HandOverDeadline() {}

    /** The deadline in ms after a poll, for a stream whose consumer runs with {@code consumerConfig}. */
    static long afterPollMs(Properties consumerConfig) {
        long maxPoll = millis(consumerConfig, ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000);
        long session;
        long heartbeat;
        Object protocol = consumerConfig.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        if (protocol != null && "consumer".equals(protocol.toString().trim().toLowerCase(Locale.ROOT))) {
            // KIP-848: the session and heartbeat interval are the broker's to set.
            session = CONSUMER_PROTOCOL_SESSION_MS;
            heartbeat = CONSUMER_PROTOCOL_HEARTBEAT_MS;
        } else {
            session = millis(consumerConfig, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 45_000);
            heartbeat = millis(consumerConfig, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        }
        long held = Math.min(maxPoll, Math.max(1, session - heartbeat));
        return Math.max(1, held / 2);
    }

    private static long millis(Properties props, String name, long defaultMs) {
        Object v = props.get(name);
        if (v == null) {
            return defaultMs;
        }
        try {
            return Long.parseLong(v.toString().trim());
        } catch (NumberFormatException e) {
            // The consumer itself refuses the value when it starts, with a message naming the setting.
            return defaultMs;
        }
    }
}
