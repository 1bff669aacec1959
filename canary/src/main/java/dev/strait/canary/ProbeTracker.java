package dev.strait.canary;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Follows every probe from send to arrival and decides the alarm state.
 *
 * <pre>
 *   OK   : every outstanding probe is younger than alarm.threshold.ms
 *   LATE : some outstanding probe is older than alarm.threshold.ms
 *   LOST : a probe was declared lost (missing after lost.after.ms) within the last lost.after.ms
 * </pre>
 * A probe that arrives after it was declared lost is counted as a late arrival and does not undo the loss
 * count; a probe that arrives twice is counted as duplicated.
 *
 * <p>Thread-safe: the prober, the reader and the evaluator call it from their threads; every method
 * synchronizes on the tracker.
 */
public final class ProbeTracker {
    /** What happened to an arriving probe. */
    public enum Arrival {
        IN_TIME,
        LATE,
        AFTER_LOST,
        DUPLICATE,
        UNKNOWN
    }

    private static final int REMEMBERED_ARRIVALS = 100_000;

    private final long thresholdMs;
    private final long lostAfterMs;
    private final Map<Long, Probe> outstanding = new LinkedHashMap<>();
    private final Set<Long> lateCounted = new LinkedHashSet<>();
    private final Set<Long> arrivedSeqs = new LinkedHashSet<>();
    private final Set<Long> lostSeqs = new LinkedHashSet<>();
    private long sent;
    private long arrived;
    private long late;
    private long lost;
    private long lateAfterLost;
    private long duplicated;
    private long lastLostMs = Long.MIN_VALUE / 2;
    private long lastArrivalMs = -1;

    public ProbeTracker(long thresholdMs, long lostAfterMs) {
        this.thresholdMs = thresholdMs;
        this.lostAfterMs = lostAfterMs;
    }

    public synchronized void sent(Probe probe) {
        outstanding.put(probe.seq(), probe);
        sent++;
    }

    /** A probe the source never accepted is not outstanding: the produce error is counted elsewhere. */
    public synchronized void notSent(Probe probe) {
        outstanding.remove(probe.seq());
    }

    public synchronized Arrival arrived(Probe probe, long nowMs) {
        long seq = probe.seq();
        if (!remember(arrivedSeqs, seq)) {
            duplicated++;
            return Arrival.DUPLICATE;
        }
        lastArrivalMs = nowMs;
        Probe p = outstanding.remove(seq);
        if (p == null) {
            if (lostSeqs.remove(seq)) {
                lateAfterLost++;
                return Arrival.AFTER_LOST;
            }
            return Arrival.UNKNOWN;
        }
        arrived++;
        if (lateCounted.remove(seq)) {
            return Arrival.LATE;
        }
        if (nowMs - p.sentMs() > thresholdMs) {
            late++;
            return Arrival.LATE;
        }
        return Arrival.IN_TIME;
    }

    /** Ages the outstanding probes: counts the newly late and the newly lost, and returns the state. */
    public synchronized CanaryState evaluate(long nowMs) {
        boolean anyLate = false;
        for (Iterator<Probe> it = outstanding.values().iterator(); it.hasNext(); ) {
            Probe p = it.next();
            long age = nowMs - p.sentMs();
            if (age > lostAfterMs) {
                it.remove();
                lateCounted.remove(p.seq());
                remember(lostSeqs, p.seq());
                lost++;
                lastLostMs = nowMs;
            } else if (age > thresholdMs) {
                anyLate = true;
                if (remember(lateCounted, p.seq())) {
                    late++;
                }
            }
        }
        if (nowMs - lastLostMs < lostAfterMs) {
            return CanaryState.LOST;
        }
        return anyLate ? CanaryState.LATE : CanaryState.OK;
    }

    /** Counters at one moment. Immutable. */
    public record Counts(
            long sent,
            long arrived,
            long late,
            long lost,
            long lateAfterLost,
            long duplicated,
            int outstanding,
            long lastArrivalMs) {}

    public synchronized Counts counts() {
        return new Counts(sent, arrived, late, lost, lateAfterLost, duplicated, outstanding.size(), lastArrivalMs);
    }

    private static boolean remember(Set<Long> set, long seq) {
        boolean added = set.add(seq);
        if (set.size() > REMEMBERED_ARRIVALS) {
            Iterator<Long> it = set.iterator();
            it.next();
            it.remove();
        }
        return added;
    }
}
