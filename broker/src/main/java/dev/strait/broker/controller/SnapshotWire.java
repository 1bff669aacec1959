package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerWire.MalformedFrameException;
import dev.strait.broker.raft.OffsetAndEpoch;
import dev.strait.broker.raft.RaftMessage;
import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * The controller wire's frames for metadata snapshots (KIP-630), kept apart from {@link ControllerWire} so the
 * rest of the protocol is untouched: a fetch answer that points the follower at a snapshot, and the
 * FetchSnapshot request and its chunked answer. Bodies, after the frame type byte:
 * <pre>
 *   FETCH_RESPONSE_SNAPSHOT  int source, int destination, int epoch, int leaderId, long fetchOffset,
 *                            int lastFetchedEpoch, long highWatermark, long snapshotEndOffset, int snapshotEpoch
 *   FETCH_SNAPSHOT_REQUEST   int source, int destination, int epoch, long snapshotEndOffset, int snapshotEpoch,
 *                            long position, int maxBytes
 *   FETCH_SNAPSHOT_RESPONSE  int source, int destination, int epoch, byte error, int leaderId,
 *                            long snapshotEndOffset, int snapshotEpoch, long size, int crc32c, long position,
 *                            int length, bytes
 * </pre>
 * A fetch answer without a snapshot id keeps its old frame ({@code FETCH_RESPONSE}), so nodes exchange the
 * same bytes as before until one of them takes a snapshot.
 */
final class SnapshotWire {

    static final byte FETCH_RESPONSE_SNAPSHOT = 15;
    static final byte FETCH_SNAPSHOT_REQUEST = 16;
    static final byte FETCH_SNAPSHOT_RESPONSE = 17;

    private SnapshotWire() {}

    /** Whether this module writes {@code message}: the snapshot messages, and fetch answers naming a snapshot. */
    static boolean handles(RaftMessage message) {
        return message instanceof FetchSnapshotRequest
                || message instanceof FetchSnapshotResponse
                || message instanceof FetchResponse response && response.snapshotId() != null;
    }

    static void write(DataOutputStream out, RaftMessage message) throws IOException {
        if (message instanceof FetchResponse m) {
            out.writeByte(FETCH_RESPONSE_SNAPSHOT);
            header(out, m);
            out.writeInt(m.leaderId());
            out.writeLong(m.fetchOffset());
            out.writeInt(m.lastFetchedEpoch());
            out.writeLong(m.highWatermark());
            writeId(out, Objects.requireNonNull(m.snapshotId(), "handles() takes only an answer with a snapshot"));
        } else if (message instanceof FetchSnapshotRequest m) {
            out.writeByte(FETCH_SNAPSHOT_REQUEST);
            header(out, m);
            writeId(out, m.snapshotId());
            out.writeLong(m.position());
            out.writeInt(m.maxBytes());
        } else if (message instanceof FetchSnapshotResponse m) {
            out.writeByte(FETCH_SNAPSHOT_RESPONSE);
            header(out, m);
            out.writeByte(m.error().ordinal());
            out.writeInt(m.leaderId());
            writeId(out, m.snapshotId());
            out.writeLong(m.size());
            out.writeInt(m.crc32c());
            out.writeLong(m.position());
            byte[] bytes = m.bytes();
            out.writeInt(bytes.length);
            out.write(bytes);
        } else {
            throw new IllegalArgumentException("not a snapshot message: " + message);
        }
    }

    static RaftMessage read(byte type, DataInputStream in) throws IOException {
        int source = in.readInt();
        int destination = in.readInt();
        int epoch = in.readInt();
        switch (type) {
            case FETCH_RESPONSE_SNAPSHOT: {
                int leaderId = in.readInt();
                long fetchOffset = in.readLong();
                int lastFetchedEpoch = in.readInt();
                long highWatermark = in.readLong();
                return new FetchResponse(
                        source,
                        destination,
                        epoch,
                        FetchError.NONE,
                        leaderId,
                        fetchOffset,
                        lastFetchedEpoch,
                        null,
                        List.of(),
                        highWatermark,
                        readId(in));
            }
            case FETCH_SNAPSHOT_REQUEST:
                return new FetchSnapshotRequest(source, destination, epoch, readId(in), in.readLong(), in.readInt());
            case FETCH_SNAPSHOT_RESPONSE: {
                int errorCode = in.readByte();
                if (errorCode < 0 || errorCode >= FetchError.values().length) {
                    throw new MalformedFrameException("unknown fetch snapshot error " + errorCode);
                }
                int leaderId = in.readInt();
                OffsetAndEpoch id = readId(in);
                long size = in.readLong();
                int crc = in.readInt();
                long position = in.readLong();
                int length = in.readInt();
                if (length < 0 || length > in.available()) {
                    throw new MalformedFrameException("snapshot chunk length " + length);
                }
                return new FetchSnapshotResponse(
                        source,
                        destination,
                        epoch,
                        FetchError.values()[errorCode],
                        leaderId,
                        id,
                        size,
                        crc,
                        position,
                        in.readNBytes(length));
            }
            default:
                throw new MalformedFrameException("not a snapshot frame type " + type);
        }
    }

    private static void header(DataOutputStream out, RaftMessage m) throws IOException {
        out.writeInt(m.source());
        out.writeInt(m.destination());
        out.writeInt(m.epoch());
    }

    private static void writeId(DataOutputStream out, OffsetAndEpoch id) throws IOException {
        out.writeLong(id.offset());
        out.writeInt(id.epoch());
    }

    private static OffsetAndEpoch readId(DataInputStream in) throws IOException {
        return new OffsetAndEpoch(in.readLong(), in.readInt());
    }
}
