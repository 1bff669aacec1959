package dev.strait.mirror.sync;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the offset map true to the target before a round translates with it: forgets what retention deleted,
 * starts over for a partition that was truncated or re-created, and reads from the target what the map does
 * not know (holes left by a restart, and, when it is small enough, the stretch below the first known offset),
 * within a budget of records per round.
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
            TargetReader reader,
            Map<TopicPartition, Long> knownEndsBefore,
            Map<TopicPartition, Long> starts,
            Map<TopicPartition, Long> ends,
            long budget,
            Map<TopicPartition, Long> tailTo) {
        long read = 0;
        int reset = 0;
        boolean complete = true;
        for (TargetHistory h : map.histories()) {
            TopicPartition tp = h.target();
            Long end = ends.get(tp);
            Long start = starts.get(tp);
            if (end == null || start == null) {
                continue;
            }
            long knownEnd = knownEndsBefore.getOrDefault(tp, -1L);
            if (knownEnd > end) {
                LOGGER.warn(
                        "Target partition {} ends at {} but the offset map knew records up to {}: it was truncated "
                                + "or re-created; forgetting what the map knew of it",
                        tp,
                        end,
                        knownEnd);
                h.reset();
                reset++;
                continue;
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
                long reached = reader.fill(h, Math.max(hole[0], start), hole[1]);
                read += reached - Math.max(hole[0], start);
            }
            long from = h.index().from();
            if (from > start && read + (from - start) <= budget) {
                long reached = reader.fill(h, start, from);
                read += reached - start;
            } else if (from > start) {
                complete = false;
            }
            long known = h.knownEnd();
            long tailEnd = tailTo == null ? -1 : Math.min(end, tailTo.getOrDefault(tp, end));
            if (tailEnd >= 0 && (known < 0 || known < tailEnd)) {
                long fromTail = known < 0 ? start : known;
                if (read + (tailEnd - fromTail) <= budget) {
                    long reached = reader.fill(h, fromTail, tailEnd);
                    read += reached - fromTail;
                } else {
                    complete = false;
                }
            }
        }
        return new Result(read, reset, complete);
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
