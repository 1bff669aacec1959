package dev.strait.mirror.sync;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the offset map true to the target before a round translates with it: forgets what retention deleted,
 * starts over for a partition that was truncated or whose topic was re-created (the facts of another incarnation
 * would point at records that are not there), and reads from the target what the map does not know (holes left by
 * a restart, and, when it is small enough, the stretch below the first known offset), within a budget of records
 * per round.
 */
public final class MapUpkeep {
    private static final Logger LOGGER = LoggerFactory.getLogger(MapUpkeep.class);

    private MapUpkeep() {}

    /** What one upkeep did. */
    public record Result(long recordsRead, int partitionsReset, boolean complete) {}

    /**
     * @param knownEndsBefore each history's known end, taken before {@code ends} was read (so acknowledgements
     *     that arrived in between cannot look like a truncation)
     * @param starts log start offsets of the target partitions
     * @param ends log end offsets of the target partitions (a partition missing here no longer exists)
     * @param tailTo when not null, also read from each history's known end up to this offset (a command, with the
     *     mirror stopped; a running mirror learns its own tail from acknowledgements)
     */
    public static Result run(
            OffsetMap map,
            TargetRecords reader,
            Map<TopicPartition, Long> knownEndsBefore,
            Map<TopicPartition, Long> starts,
            Map<TopicPartition, Long> ends,
            long budget,
            @Nullable Map<TopicPartition, Long> tailTo) {
        long read = 0;
        int reset = 0;
        boolean complete = true;
        Set<String> topics = new HashSet<>();
        for (TargetHistory h : map.histories()) {
            if (ends.containsKey(h.target())) {
                topics.add(h.target().topic());
            }
        }
        Map<String, String> topicIds = reader.topicIds(topics);
        for (TargetHistory h : map.histories()) {
            TopicPartition tp = h.target();
            Long end = ends.get(tp);
            Long start = starts.get(tp);
            if (end == null || start == null) {
                continue;
            }
            String topicId = topicIds.get(tp.topic());
            long knownEnd = knownEndsBefore.getOrDefault(tp, -1L);
            String stale = null;
            if (topicId != null && h.topicId() != null && !h.topicId().equals(topicId)) {
                stale = "was deleted and created again (topic id " + h.topicId() + ", now " + topicId + ")";
            } else if (knownEnd > end) {
                stale = "ends at " + end + " but the offset map knew records up to " + knownEnd
                        + ": it was truncated or re-created";
            } else if (topicId != null && h.unverified() && !verified(h, reader, start, end)) {
                stale = "no longer holds the copies a snapshot without a topic id (written by an older version) "
                        + "names: its topic was re-created";
            }
            if (stale != null) {
                LOGGER.warn(
                        "Target partition {} {}; forgetting what the offset map knew of it and reading it again",
                        tp,
                        stale);
                h.reset(topicId != null ? topicId : h.topicId());
                reset++;
                // What the map knew was wrong: learn the partition again from the target, as far as the budget goes.
                if (end - start > 0 && read + (end - start) <= budget) {
                    read += fill(reader, h, start, end) - start;
                } else if (end - start > 0) {
                    complete = false;
                }
                continue;
            }
            if (topicId != null) {
                h.confirm(topicId);
            }
            if (h.index().from() >= 0 && h.index().from() < start) {
                h.dropBelow(start);
            }
            for (long[] hole : h.holes()) {
                long want = hole[1] - Math.max(hole[0], start);
                if (want <= 0) {
                    continue;
                }
                if (read + want > budget) {
                    complete = false;
                    break;
                }
                long reached = fill(reader, h, Math.max(hole[0], start), hole[1]);
                read += reached - Math.max(hole[0], start);
            }
            // Below what the cap dropped on purpose nothing is read: the cap would drop it again, every round.
            long floor = Math.max(start, h.cappedBelow());
            long from = h.index().from();
            if (from > floor && read + (from - floor) <= budget) {
                long reached = fill(reader, h, floor, from);
                read += reached - floor;
            } else if (from > floor) {
                complete = false;
            }
            long known = h.knownEnd();
            long tailEnd = tailTo == null ? -1 : Math.min(end, tailTo.getOrDefault(tp, end));
            if (tailEnd >= 0 && (known < 0 || known < tailEnd)) {
                long fromTail = known < 0 ? start : known;
                if (read + (tailEnd - fromTail) <= budget) {
                    long reached = fill(reader, h, fromTail, tailEnd);
                    read += reached - fromTail;
                } else {
                    complete = false;
                }
            }
        }
        return new Result(read, reset, complete);
    }

    /**
     * Whether the copies of {@code h}, learnt from a snapshot that named no topic id, are on the target: its first
     * copy at or after the log start and its last one are read back and must be the same records.
     */
    private static boolean verified(TargetHistory h, TargetRecords reader, long start, long end) {
        HistorySnapshot snap = h.snapshot();
        int first = -1;
        for (int i = 0; i < snap.size(); i++) {
            if (snap.t()[i] + snap.len()[i] > start) {
                first = i;
                break;
            }
        }
        if (first < 0) {
            return true;
        }
        long firstAt = Math.max(start, snap.t()[first]);
        int last = snap.size() - 1;
        long lastAt = snap.t()[last] + snap.len()[last] - 1;
        return holds(reader, snap, first, firstAt, end) && holds(reader, snap, last, lastAt, end);
    }

    private static boolean holds(TargetRecords reader, HistorySnapshot snap, int seg, long at, long end) {
        if (at >= end) {
            return false;
        }
        TargetReader.Range range = reader.read(snap.target(), at, at + 1);
        if (range.reachedTo() <= at) {
            // Not reached (a timeout): no verdict, keep the facts until a later round can tell.
            return true;
        }
        Fact expected = new Fact(at, snap.feeders().get(snap.feeder()[seg]), snap.s()[seg] + (at - snap.t()[seg]));
        return range.facts().size() == 1 && range.facts().get(0).equals(expected);
    }

    /** Reads a range and teaches it to {@code history}; returns the offset it reached. */
    static long fill(TargetRecords reader, TargetHistory history, long from, long to) {
        TargetReader.Range range = reader.read(history.target(), from, to);
        history.merge(range.facts(), range.from(), range.reachedTo());
        return range.reachedTo();
    }

    /** Known ends of every history, to pass to {@link #run} (read them before the target's end offsets). */
    public static Map<TopicPartition, Long> knownEnds(OffsetMap map) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (TargetHistory h : map.histories()) {
            out.put(h.target(), h.knownEnd());
        }
        return out;
    }

    /** Target partitions the map holds something of. */
    public static List<TopicPartition> partitions(OffsetMap map) {
        return map.histories().stream().map(TargetHistory::target).toList();
    }
}
