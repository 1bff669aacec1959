package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.controller.ControllerMessage.Raft;
import dev.strait.broker.controller.ControllerWire.MalformedFrameException;
import dev.strait.broker.raft.OffsetAndEpoch;
import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotRequest;
import dev.strait.broker.raft.RaftMessage.FetchSnapshotResponse;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/** The controller wire's snapshot frames: round trips, the old fetch frame kept, damaged frames refused. */
class SnapshotWireTest {

    private static final OffsetAndEpoch ID = new OffsetAndEpoch(5_120_793, 2);

    private static ControllerMessage roundTrip(ControllerMessage message) throws MalformedFrameException {
        byte[] frame = ControllerWire.encode(message);
        return ControllerWire.decode(Arrays.copyOfRange(frame, 4, frame.length));
    }

    private static byte frameType(ControllerMessage message) {
        return ControllerWire.encode(message)[5];
    }

    @Test
    void snapshotMessagesSurviveTheRoundTrip() throws Exception {
        byte[] chunk = new byte[1 << 20];
        new Random(1).nextBytes(chunk);
        List<ControllerMessage> messages = List.of(
                new Raft(new FetchResponse(1, 2, 7, FetchError.NONE, 1, 0, 0, null, List.of(), 9_000_000, ID)),
                new Raft(new FetchSnapshotRequest(2, 1, 7, ID, 3 << 20, 1 << 20)),
                new Raft(new FetchSnapshotResponse(
                        1, 2, 7, FetchError.NONE, 1, ID, 5 << 20, 0xCAFEBABE, 3 << 20, chunk)),
                new Raft(
                        new FetchSnapshotResponse(1, 2, 7, FetchError.SNAPSHOT_NOT_FOUND, 1, ID, 0, 0, 0, new byte[0])),
                new Raft(new FetchSnapshotResponse(3, 2, 8, FetchError.NOT_LEADER, -1, ID, 0, 0, 64, new byte[0])));
        for (ControllerMessage message : messages) {
            assertThat(roundTrip(message)).as("%s", message).isEqualTo(message);
        }
    }

    @Test
    void aFetchAnswerWithoutASnapshotKeepsItsOldFrame() {
        FetchResponse plain = new FetchResponse(1, 2, 7, FetchError.NONE, 1, 4, 3, null, List.of(), 4);
        FetchResponse pointing = new FetchResponse(1, 2, 7, FetchError.NONE, 1, 4, 3, null, List.of(), 4, ID);
        assertThat(frameType(new Raft(plain))).isEqualTo((byte) 14);
        assertThat(frameType(new Raft(pointing))).isEqualTo(SnapshotWire.FETCH_RESPONSE_SNAPSHOT);
    }

    @Test
    void aChunkLongerThanItsFrameIsRefused() {
        byte[] frame = ControllerWire.encode(
                new Raft(new FetchSnapshotResponse(1, 2, 7, FetchError.NONE, 1, ID, 10, 0, 0, new byte[] {1, 2, 3})));
        byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
        // the length field sits just before the three bytes and the CRC; claim more than the frame holds
        int lengthAt = body.length - 4 - 3 - 4;
        ByteBuffer.wrap(body).putInt(lengthAt, 1_000);
        CRC32C crc = new CRC32C();
        crc.update(body, 0, body.length - 4);
        ByteBuffer.wrap(body).putInt(body.length - 4, (int) crc.getValue());
        assertThatThrownBy(() -> ControllerWire.decode(body))
                .isInstanceOf(MalformedFrameException.class)
                .hasMessageContaining("chunk length");
    }

    @Test
    void damagedSnapshotFramesAreRefusedNotMisread() {
        byte[] frame = ControllerWire.encode(new Raft(
                new FetchSnapshotResponse(1, 2, 7, FetchError.NONE, 1, ID, 10, 0, 0, new byte[] {1, 2, 3, 4, 5})));
        byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
        Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            byte[] damaged = body.clone();
            damaged[random.nextInt(damaged.length)] ^= (byte) (1 + random.nextInt(255));
            assertThatThrownBy(() -> ControllerWire.decode(damaged)).isInstanceOf(MalformedFrameException.class);
        }
    }
}
