package dev.strait.broker.raft;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * One entry of the replicated log. {@link Kind#LEADER_CHANGE} entries are written by each new leader as the
 * first entry of its epoch: Raft may only count replicas for an entry of the leader's own epoch, so without one
 * a leader elected after a quiet period could never commit what its predecessors left uncommitted.
 * Immutable: the payload array is copied in and never handed out.
 */
public final class LogEntry {

    /** What an entry carries. */
    public enum Kind {
        LEADER_CHANGE(0),
        DATA(1);

        private final byte code;

        Kind(int code) {
            this.code = (byte) code;
        }

        public byte code() {
            return code;
        }

        public static Kind forCode(byte code) {
            for (Kind kind : values()) {
                if (kind.code == code) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("unknown log entry kind " + code);
        }
    }

    private final int epoch;
    private final long offset;
    private final Kind kind;
    private final byte[] payload;

    public LogEntry(int epoch, long offset, Kind kind, byte[] payload) {
        if (epoch <= 0 || offset < 0) {
            throw new IllegalArgumentException("bad entry position epoch=" + epoch + " offset=" + offset);
        }
        this.epoch = epoch;
        this.offset = offset;
        this.kind = kind;
        this.payload = payload.clone();
    }

    public static LogEntry leaderChange(int epoch, long offset, int leaderId) {
        return new LogEntry(epoch, offset, Kind.LEADER_CHANGE, new byte[] {
            (byte) (leaderId >>> 24), (byte) (leaderId >>> 16), (byte) (leaderId >>> 8), (byte) leaderId
        });
    }

    public int epoch() {
        return epoch;
    }

    public long offset() {
        return offset;
    }

    public Kind kind() {
        return kind;
    }

    public int payloadSize() {
        return payload.length;
    }

    public byte[] payload() {
        return payload.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LogEntry other
                && epoch == other.epoch
                && offset == other.offset
                && kind == other.kind
                && Arrays.equals(payload, other.payload);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * Long.hashCode(offset) + epoch) + Arrays.hashCode(payload);
    }

    @Override
    public String toString() {
        String body = payload.length <= 16 ? HexFormat.of().formatHex(payload) : payload.length + " bytes";
        return "LogEntry(" + offset + "@" + epoch + " " + kind + " " + body + ")";
    }
}
