package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofBoolean;
import static dev.strait.settings.Setting.ofDouble;
import static dev.strait.settings.Setting.ofLong;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import java.util.List;

/**
 * The settings of {@link Group#COMPACTION} in the table {@link BrokerSettings} gathers: the log cleaner, which
 * compacts topics with cleanup.policy compact. Each is declared once, with its default, what it allows and its
 * documentation.
 */
public final class CompactionSettings {

    public static final Setting<Boolean> LOG_CLEANER_ENABLE = ofBoolean(
            "log.cleaner.enable",
            "true",
            Group.COMPACTION,
            "Whether topics with cleanup.policy compact are compacted.");

    public static final Setting<Long> LOG_CLEANER_BACKOFF_MS = ofLong(
                    "log.cleaner.backoff.ms", "15000", Group.COMPACTION, "The cleaner's pause between rounds.")
            .atLeast(1);

    public static final Setting<Long> LOG_CLEANER_DEDUPE_BUFFER_SIZE = ofLong(
                    "log.cleaner.dedupe.buffer.size",
                    "134217728",
                    Group.COMPACTION,
                    "Memory for the map from key to latest offset that a cleaning pass builds.")
            .atLeast(1);

    public static final Setting<Double> LOG_CLEANER_IO_MAX_BYTES_PER_SECOND = ofDouble(
                    "log.cleaner.io.max.bytes.per.second",
                    null,
                    Group.COMPACTION,
                    "A cap on the cleaner's reads plus writes, in bytes per second.")
            .atLeast(1)
            .defaultIs("no limit");

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            LOG_CLEANER_ENABLE,
            LOG_CLEANER_BACKOFF_MS,
            LOG_CLEANER_DEDUPE_BUFFER_SIZE,
            LOG_CLEANER_IO_MAX_BYTES_PER_SECOND);

    private CompactionSettings() {}
}
