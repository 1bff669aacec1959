package dev.strait.mirror.config;

import dev.strait.mirror.handler.MessageHandler;
import dev.strait.settings.ConfigException;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * Everything a mirror engine runs with, validated. Immutable; build it with {@link #builder()}.
 */
public final class MirrorConfig {
    private final Properties consumerConfig;
    private final Properties producerConfig;
    private final int numStreams;
    private final Pattern include;
    private final long offsetCommitIntervalMs;
    private final boolean abortOnSendFailure;
    private final @Nullable MessageHandler messageHandler;
    private final TruncationPolicy onSourceTruncation;
    private final PartitionMode partitionMode;
    private final TopicRenamer renamer;
    private final boolean provenanceHeaders;
    private final short targetReplicationFactor;
    private final long progressIntervalMs;
    private final SyncConfig sync;

    private MirrorConfig(Builder b, Properties consumerConfig, Properties producerConfig, Pattern include) {
        this.consumerConfig = copy(consumerConfig);
        this.producerConfig = copy(producerConfig);
        this.numStreams = b.numStreams;
        this.include = include;
        this.offsetCommitIntervalMs = b.offsetCommitIntervalMs;
        this.abortOnSendFailure = b.abortOnSendFailure;
        this.messageHandler = b.messageHandler;
        this.onSourceTruncation = b.onSourceTruncation;
        this.partitionMode = b.partitionMode;
        this.renamer = b.renamer;
        this.provenanceHeaders = b.provenanceHeaders;
        this.targetReplicationFactor = b.targetReplicationFactor;
        this.progressIntervalMs = b.progressIntervalMs;
        this.sync = b.sync;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The user's source-side consumer properties, as given. */
    public Properties consumerConfig() {
        return copy(consumerConfig);
    }

    /** The user's target-side producer properties, as given. */
    public Properties producerConfig() {
        return copy(producerConfig);
    }

    public int numStreams() {
        return numStreams;
    }

    /** The user's include pattern; internal topics are excluded on top of it. */
    public Pattern include() {
        return include;
    }

    /** The pattern streams subscribe with: the user's, minus internal ({@code __}-prefixed) topics. */
    public Pattern subscription() {
        return Pattern.compile("(?!__)(?:" + include.pattern() + ")");
    }

    public long offsetCommitIntervalMs() {
        return offsetCommitIntervalMs;
    }

    public boolean abortOnSendFailure() {
        return abortOnSendFailure;
    }

    /** The user's record handler, or null for plain mirroring. */
    public @Nullable MessageHandler messageHandler() {
        return messageHandler;
    }

    public TruncationPolicy onSourceTruncation() {
        return onSourceTruncation;
    }

    public PartitionMode partitionMode() {
        return partitionMode;
    }

    public TopicRenamer renamer() {
        return renamer;
    }

    public boolean provenanceHeaders() {
        return provenanceHeaders;
    }

    /** Replication factor of target topics the mirror creates; -1 means the target broker's default. */
    public short targetReplicationFactor() {
        return targetReplicationFactor;
    }

    public long progressIntervalMs() {
        return progressIntervalMs;
    }

    /** What the mirror keeps in step on the target besides the records: group offsets, the offset map, topics. */
    public SyncConfig sync() {
        return sync;
    }

    private static Properties copy(Properties p) {
        Properties out = new Properties();
        out.putAll(p);
        return out;
    }

    /** Validates as it goes: each setter throws {@link ConfigException} with a one-line reason. */
    public static final class Builder {
        private @Nullable Properties consumerConfig;
        private @Nullable Properties producerConfig;
        private int numStreams = 1;
        private @Nullable Pattern include;
        private long offsetCommitIntervalMs = 60_000;
        private boolean abortOnSendFailure = true;
        private @Nullable MessageHandler messageHandler;
        private TruncationPolicy onSourceTruncation = TruncationPolicy.FAIL;
        private PartitionMode partitionMode = PartitionMode.PRESERVE;
        private TopicRenamer renamer = TopicRenamer.identity();
        private boolean provenanceHeaders = true;
        private short targetReplicationFactor = -1;
        private long progressIntervalMs = 30_000;
        private SyncConfig sync = SyncConfig.defaults();

        private Builder() {}

        public Builder consumerConfig(Properties props) {
            this.consumerConfig = Objects.requireNonNull(props);
            return this;
        }

        public Builder producerConfig(Properties props) {
            this.producerConfig = Objects.requireNonNull(props);
            return this;
        }

        public Builder numStreams(int n) {
            if (n < 1) {
                throw new ConfigException("--num.streams must be at least 1, not " + n);
            }
            this.numStreams = n;
            return this;
        }

        /** Kafka MirrorMaker 1 accepted comma-separated lists as well as regexes; so do we. */
        public Builder include(String regex) {
            if (regex == null || regex.isBlank()) {
                throw new ConfigException("--whitelist/--include needs a regex of topics to mirror, e.g. 'prod\\..*'");
            }
            String effective = regex.trim();
            if (effective.contains(",") && !effective.contains("{")) {
                effective = effective.replace(',', '|');
            }
            try {
                this.include = Pattern.compile(effective);
            } catch (PatternSyntaxException e) {
                throw new ConfigException("--whitelist/--include is not a valid regex: " + e.getDescription()
                        + " near index " + e.getIndex() + " in '" + regex + "'");
            }
            return this;
        }

        public Builder offsetCommitIntervalMs(long ms) {
            if (ms < 100) {
                throw new ConfigException("--offset.commit.interval.ms must be at least 100, not " + ms);
            }
            this.offsetCommitIntervalMs = ms;
            return this;
        }

        public Builder abortOnSendFailure(boolean abort) {
            this.abortOnSendFailure = abort;
            return this;
        }

        public Builder messageHandler(@Nullable MessageHandler handler) {
            this.messageHandler = handler;
            return this;
        }

        public Builder onSourceTruncation(TruncationPolicy policy) {
            this.onSourceTruncation = Objects.requireNonNull(policy);
            return this;
        }

        public Builder partitionMode(PartitionMode mode) {
            this.partitionMode = Objects.requireNonNull(mode);
            return this;
        }

        public Builder renamer(TopicRenamer renamer) {
            this.renamer = Objects.requireNonNull(renamer);
            return this;
        }

        public Builder provenanceHeaders(boolean on) {
            this.provenanceHeaders = on;
            return this;
        }

        public Builder targetReplicationFactor(int rf) {
            if (rf == 0 || rf < -1 || rf > Short.MAX_VALUE) {
                throw new ConfigException(
                        "--target.replication.factor must be -1 (broker default) or at least 1, not " + rf);
            }
            this.targetReplicationFactor = (short) rf;
            return this;
        }

        public Builder progressIntervalMs(long ms) {
            if (ms < 1000) {
                throw new ConfigException("--progress.interval.ms must be at least 1000, not " + ms);
            }
            this.progressIntervalMs = ms;
            return this;
        }

        public Builder sync(SyncConfig sync) {
            this.sync = Objects.requireNonNull(sync);
            return this;
        }

        public MirrorConfig build() {
            Properties consumerConfig = this.consumerConfig;
            Properties producerConfig = this.producerConfig;
            Pattern include = this.include;
            if (consumerConfig == null) {
                throw new ConfigException(
                        "--consumer.config is required (properties of the source cluster and group.id)");
            }
            if (producerConfig == null) {
                throw new ConfigException("--producer.config is required (properties of the target cluster)");
            }
            if (include == null) {
                throw new ConfigException("--whitelist (or --include) is required: a regex of topics to mirror");
            }
            if (sync.groups() != null && !provenanceHeaders) {
                throw new ConfigException("--groups needs --provenance.headers=true: group offsets are translated from "
                        + "the provenance of the copies");
            }
            // Validate the client configurations now, so bad input fails before anything starts.
            ClientConfigs.consumer(consumerConfig, 0);
            ClientConfigs.producer(producerConfig);
            return new MirrorConfig(this, consumerConfig, producerConfig, include);
        }
    }
}
