package dev.strait.broker.protocol;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.protocol.Errors;
import org.jspecify.annotations.Nullable;

/**
 * Incremental fetch sessions (KIP-227). A consumer of many partitions sends them all once (session epoch 0); the
 * broker keeps them with their fetch offsets under a session id, and the consumer's later fetches name only the
 * partitions whose fetch position changed, and those it stops fetching. The answer to such a fetch carries only the
 * partitions with records, an error, or a new high watermark, last stable offset or log start offset. A fetch with
 * epoch -1 is a sessionless full fetch, as before.
 *
 * <p>At most {@code slots} sessions are kept; when full, the longest unused session is evicted if it has been idle
 * for {@link #EVICTABLE_IDLE_MS}, else the new fetch gets no session (session id 0: the client goes on with full
 * fetches). Thread-safe: handler threads open fetches, the purgatory completes them.
 */
final class FetchSessions {
    static final int INITIAL_EPOCH = 0;
    static final int FINAL_EPOCH = -1;
    static final long EVICTABLE_IDLE_MS = 120_000;

    /** A partition of a session: by topic id (Fetch v13+) or by name (older versions). */
    /** {@code topic} null when the session names partitions by topic id. */
    record Key(Uuid topicId, @Nullable String topic, int partition) {}

    /** What a session last told the client about a partition, so unchanged partitions can be left out. */
    record Sent(long highWatermark, long lastStableOffset, long logStartOffset) {}

    /** One session; guarded by the cache's lock. */
    static final class Session {
        final int id;
        final boolean topicIds;
        int nextEpoch = 1;
        long lastUsedMs;
        final LinkedHashMap<Key, FetchPartition> partitions = new LinkedHashMap<>();
        final Map<Key, Sent> sent = new HashMap<>();

        Session(int id, boolean topicIds, long nowMs) {
            this.id = id;
            this.topicIds = topicIds;
            this.lastUsedMs = nowMs;
        }
    }

    /**
     * How to answer one fetch: an error for the whole fetch; or the topics to read, the session id to answer with,
     * and the session whose unchanged partitions are left out (null for a full answer).
     */
    record Opened(
            Errors error,
            List<FetchTopic> topics,
            int sessionId,
            @Nullable Session incremental,
            @Nullable Session recordSent) {
        static Opened failed(Errors error) {
            return new Opened(error, List.of(), 0, null, null);
        }
    }

    private final int slots;
    private final long seed;
    private long counter;
    private final Map<Integer, Session> sessions = new LinkedHashMap<>(16, 0.75f, true);

    /**
     * @param seed where session ids start; the node's start time, so a client holding a session of this node's
     *             previous run is unlikely to meet a new session of the same id (it then gets an epoch error and
     *             starts over)
     */
    FetchSessions(int slots, long seed) {
        this.slots = slots;
        this.seed = seed;
    }

    /** Opens a fetch at {@code nowMs}: creates, updates, closes or ignores a session as its id and epoch ask. */
    synchronized Opened open(FetchRequestData data, boolean topicIds, long nowMs) {
        int id = data.sessionId();
        int epoch = data.sessionEpoch();
        if (epoch == FINAL_EPOCH) {
            if (id != 0) {
                sessions.remove(id);
            }
            return new Opened(Errors.NONE, data.topics(), 0, null, null);
        }
        if (epoch == INITIAL_EPOCH) {
            if (id != 0) {
                sessions.remove(id);
            }
            Session created = create(topicIds, nowMs);
            if (created == null) {
                return new Opened(Errors.NONE, data.topics(), 0, null, null);
            }
            addOrUpdate(created, data.topics());
            return new Opened(Errors.NONE, data.topics(), created.id, null, created);
        }
        Session session = sessions.get(id);
        if (session == null) {
            return Opened.failed(Errors.FETCH_SESSION_ID_NOT_FOUND);
        }
        if (session.nextEpoch != epoch || session.topicIds != topicIds) {
            return Opened.failed(Errors.INVALID_FETCH_SESSION_EPOCH);
        }
        session.nextEpoch = epoch == Integer.MAX_VALUE ? 1 : epoch + 1;
        session.lastUsedMs = nowMs;
        addOrUpdate(session, data.topics());
        for (ForgottenTopic forgotten : data.forgottenTopicsData()) {
            for (int partition : forgotten.partitions()) {
                Key key = key(topicIds, forgotten.topicId(), forgotten.topic(), partition);
                session.partitions.remove(key);
                session.sent.remove(key);
            }
        }
        return new Opened(Errors.NONE, topicsOf(session), session.id, session, session);
    }

    /**
     * Whether a partition goes into an incremental answer, and records what it told the client; a full answer
     * (session null) includes every partition and, for a new session, records them all.
     */
    synchronized boolean answer(
            Session session, boolean incremental, Key key, boolean hasRecords, short errorCode, Sent now) {
        if (session == null) {
            return true;
        }
        Sent before = session.sent.put(key, now);
        return !incremental || hasRecords || errorCode != Errors.NONE.code() || !now.equals(before);
    }

    synchronized int size() {
        return sessions.size();
    }

    static Key key(boolean topicIds, Uuid topicId, String topic, int partition) {
        return topicIds ? new Key(topicId, null, partition) : new Key(Uuid.ZERO_UUID, topic, partition);
    }

    private @Nullable Session create(boolean topicIds, long nowMs) {
        if (slots <= 0) {
            return null;
        }
        if (sessions.size() >= slots) {
            Iterator<Session> oldest = sessions.values().iterator();
            Session idle = oldest.next();
            if (nowMs - idle.lastUsedMs < EVICTABLE_IDLE_MS) {
                return null;
            }
            oldest.remove();
        }
        int id;
        do {
            id = nextId();
        } while (id == 0 || sessions.containsKey(id));
        Session session = new Session(id, topicIds, nowMs);
        sessions.put(id, session);
        return session;
    }

    /** Spreads consecutive counter values over the positive ints (SplitMix64's finaliser). */
    private int nextId() {
        long z = seed + (++counter) * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return (int) ((z ^ (z >>> 31)) & Integer.MAX_VALUE);
    }

    private static void addOrUpdate(Session session, List<FetchTopic> topics) {
        for (FetchTopic topic : topics) {
            for (FetchPartition partition : topic.partitions()) {
                Key key = key(session.topicIds, topic.topicId(), topic.topic(), partition.partition());
                session.partitions.put(key, partition.duplicate());
            }
        }
    }

    /** The session's partitions as the topics of a fetch, in the order they joined the session. */
    private static List<FetchTopic> topicsOf(Session session) {
        Map<Object, FetchTopic> topics = new LinkedHashMap<>();
        for (Map.Entry<Key, FetchPartition> e : session.partitions.entrySet()) {
            Key key = e.getKey();
            Object topicKey = session.topicIds ? key.topicId() : key.topic();
            FetchTopic topic = topics.computeIfAbsent(topicKey, k -> {
                FetchTopic t = new FetchTopic().setPartitions(new ArrayList<>());
                return session.topicIds ? t.setTopicId(key.topicId()) : t.setTopic(key.topic());
            });
            topic.partitions().add(e.getValue().duplicate());
        }
        return new ArrayList<>(topics.values());
    }
}
