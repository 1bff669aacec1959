package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A set of target offset ranges {@code [from, to)} over which every record is known: either it is a copy
 * (and its {@link Fact} is held) or it is not a copy of this source cluster's records. Not thread-safe; the
 * owning {@link TargetHistory} guards it.
 */
final class KnownRanges {
    private final TreeMap<Long, Long> ranges = new TreeMap<>();

    /** Adds {@code [from, to)}, merging with neighbours. */
    void add(long from, long to) {
        if (to <= from) {
            return;
        }
        long start = from;
        long end = to;
        Map.Entry<Long, Long> below = ranges.floorEntry(start);
        if (below != null && below.getValue() >= start) {
            start = below.getKey();
            end = Math.max(end, below.getValue());
            ranges.remove(below.getKey());
        }
        Map.Entry<Long, Long> next = ranges.ceilingEntry(start);
        while (next != null && next.getKey() <= end) {
            end = Math.max(end, next.getValue());
            ranges.remove(next.getKey());
            next = ranges.ceilingEntry(start);
        }
        ranges.put(start, end);
    }

    /** Forgets everything below {@code offset}. */
    void dropBelow(long offset) {
        Map.Entry<Long, Long> e = ranges.firstEntry();
        while (e != null && e.getKey() < offset) {
            ranges.remove(e.getKey());
            if (e.getValue() > offset) {
                ranges.put(offset, e.getValue());
            }
            e = ranges.firstEntry();
        }
    }

    /** Forgets {@code [from, to)}, splitting the ranges around it. */
    void remove(long from, long to) {
        if (to <= from) {
            return;
        }
        Map.Entry<Long, Long> below = ranges.lowerEntry(from);
        if (below != null && below.getValue() > from) {
            ranges.put(below.getKey(), from);
            if (below.getValue() > to) {
                ranges.put(to, below.getValue());
                return;
            }
        }
        Map.Entry<Long, Long> e = ranges.ceilingEntry(from);
        while (e != null && e.getKey() < to) {
            ranges.remove(e.getKey());
            if (e.getValue() > to) {
                ranges.put(to, e.getValue());
                break;
            }
            e = ranges.ceilingEntry(from);
        }
    }

    /** Every range as {@code [from, to)}, lowest first, less {@code [from, to)}. */
    List<long[]> allExcept(long from, long to) {
        List<long[]> out = new ArrayList<>();
        ranges.forEach((k, v) -> {
            if (v <= from || k >= to) {
                out.add(new long[] {k, v});
                return;
            }
            if (k < from) {
                out.add(new long[] {k, from});
            }
            if (v > to) {
                out.add(new long[] {to, v});
            }
        });
        return out;
    }

    boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** One past the highest known offset, or -1 when nothing is known. */
    long end() {
        return ranges.isEmpty() ? -1 : ranges.lastEntry().getValue();
    }

    /** The lowest offset of the known range that ends at {@link #end()}; -1 when nothing is known. */
    long lastRangeStart() {
        return ranges.isEmpty() ? -1 : ranges.lastKey();
    }

    /** The unknown holes between the first known offset and {@link #end()}, lowest first. */
    List<long[]> holes() {
        List<long[]> out = new ArrayList<>();
        long prevEnd = -1;
        for (Map.Entry<Long, Long> e : ranges.entrySet()) {
            if (prevEnd >= 0 && e.getKey() > prevEnd) {
                out.add(new long[] {prevEnd, e.getKey()});
            }
            prevEnd = e.getValue();
        }
        return out;
    }

    /** Every range as {@code [from, to)}, lowest first. */
    List<long[]> all() {
        List<long[]> out = new ArrayList<>();
        ranges.forEach((k, v) -> out.add(new long[] {k, v}));
        return out;
    }

    int size() {
        return ranges.size();
    }

    void clear() {
        ranges.clear();
    }
}
