package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.controller.ControllerMessage.Hello;
import dev.strait.broker.controller.ControllerMessage.Raft;
import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerMessage.Response;
import dev.strait.broker.controller.ControllerWire.MalformedFrameException;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.OffsetAndEpoch;
import dev.strait.broker.raft.RaftMessage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class ControllerWireTest {

    private static final UUID ID = new UUID(1, 2);

    static List<ControllerMessage> samples() {
        return List.of(
                new Hello(3),
                new Raft(new RaftMessage.VoteRequest(1, 2, 5, new OffsetAndEpoch(10, 4), true)),
                new Raft(new RaftMessage.VoteRequest(1, 2, 6, new OffsetAndEpoch(11, 5), false)),
                new Raft(new RaftMessage.VoteResponse(2, 1, 5, true, true)),
                new Raft(new RaftMessage.VoteResponse(2, 1, 6, false, false)),
                new Raft(new RaftMessage.BeginQuorumEpoch(1, 2, 5)),
                new Raft(new RaftMessage.FetchRequest(2, 1, 5, 7, 3)),
                new Raft(new RaftMessage.FetchResponse(
                        1,
                        2,
                        5,
                        RaftMessage.FetchError.NONE,
                        1,
                        7,
                        3,
                        new OffsetAndEpoch(6, 3),
                        List.of(
                                LogEntry.leaderChange(5, 7, 1),
                                new LogEntry(5, 8, LogEntry.Kind.DATA, new byte[] {1, 2, 3})),
                        8)),
                new Raft(new RaftMessage.FetchResponse(
                        1, 2, 5, RaftMessage.FetchError.NOT_LEADER, -1, 0, 0, null, List.of(), 0)),
                new Request(2, 9, new ControllerRequest.RegisterBroker(2, ID, "h", 9092)),
                new Request(
                        2,
                        10,
                        new ControllerRequest.RegisterBroker(
                                2,
                                ID,
                                "h",
                                9093,
                                java.util.List.of(
                                        new dev.strait.broker.raft.metadata.MetadataRecord.Endpoint(
                                                "CLIENT", "c", 9092, "SASL_SSL"),
                                        new dev.strait.broker.raft.metadata.MetadataRecord.Endpoint(
                                                "REPLICATION", "h", 9093, "SSL")))),
                new Request(2, 10, new ControllerRequest.Heartbeat(2, 17, 40, true)),
                new Request(2, 11, new ControllerRequest.CreateTopic("t", 3, -1, Map.of("a", "b", "c", "d"))),
                new Request(
                        2,
                        11,
                        new ControllerRequest.CreateTopic(
                                "t", 2, -1, Map.of("a", "b"), List.of(List.of(2, 0), List.of(1, 2)))),
                new Request(2, 12, new ControllerRequest.DeleteTopic("t")),
                new Request(2, 13, new ControllerRequest.CreatePartitions("t", 6)),
                new Request(2, 13, new ControllerRequest.AlterReassignment("t", 3, List.of(2, 0))),
                new Request(2, 13, new ControllerRequest.AlterReassignment("t", 3, null)),
                new Request(
                        2, 13, new ControllerRequest.CreatePartitions("t", 5, List.of(List.of(2, 0), List.of(1, 2)))),
                new Request(2, 14, new ControllerRequest.AlterConfigs("t", Map.of())),
                new Request(
                        2,
                        14,
                        new ControllerRequest.PatchConfigs(
                                "t", Map.of("a", "1", "gone", "x"), Map.of("a", "2", "new", "y"))),
                new Request(2, 15, new ControllerRequest.AlterPartition(2, ID, 1, 4, 9, List.of(2, 0))),
                new Request(2, 15, new ControllerRequest.AlterPartition(2, ID, 1, 4, 9, List.of(2, 0), Map.of(0, 77L))),
                new Request(2, 9, new ControllerRequest.RegisterBroker(2, ID, "h", 9092, List.of(), 41)),
                new Request(2, 16, new ControllerRequest.AllocateProducerIds(2, 1000)),
                new Request(2, 17, new ControllerRequest.ElectPreferredLeaders(List.of("t", "u"))),
                new Request(2, 17, new ControllerRequest.ElectUncleanLeaders(List.of("t"))),
                new Request(
                        2,
                        18,
                        new ControllerRequest.AlterSecurity(List.of(
                                new MetadataRecord.AddAcl(new MetadataRecord.Acl(
                                        (byte) 2, "t", (byte) 3, "User:a", "*", (byte) 3, (byte) 3)),
                                new MetadataRecord.ScramCredential(
                                        "a", (byte) 2, new byte[] {1}, new byte[] {2}, new byte[] {3}, 4096)))),
                new Response(
                        2, 11, new ControllerResponse(ControllerResponse.Error.TOPIC_EXISTS, "exists", -1, 4, true)),
                new Request(2, 18, new ControllerRequest.DescribeQuorum()),
                new Response(
                        2,
                        18,
                        ControllerResponse.quorum(new dev.strait.broker.raft.QuorumDescription(
                                1,
                                7,
                                42,
                                List.of(
                                        new dev.strait.broker.raft.QuorumDescription.Replica(
                                                1,
                                                43,
                                                java.util.OptionalLong.of(1_700_000_000_000L),
                                                java.util.OptionalLong.of(1_700_000_000_000L)),
                                        new dev.strait.broker.raft.QuorumDescription.Replica(
                                                2, -1, java.util.OptionalLong.empty(), java.util.OptionalLong.empty())),
                                List.of(new dev.strait.broker.raft.QuorumDescription.Replica(
                                        9, 40, java.util.OptionalLong.of(5), java.util.OptionalLong.empty()))))));
    }

    @Test
    void everyMessageSurvivesTheRoundTrip() throws Exception {
        for (ControllerMessage message : samples()) {
            byte[] frame = ControllerWire.encode(message);
            assertThat(java.nio.ByteBuffer.wrap(frame).getInt()).isEqualTo(frame.length - 4);
            ControllerMessage decoded = ControllerWire.decode(Arrays.copyOfRange(frame, 4, frame.length));
            assertThat(decoded).as("%s", message).isEqualTo(message);
        }
    }

    @Test
    void damagedFramesAreRefusedNotMisread() {
        byte[] frame = ControllerWire.encode(samples().get(10));
        byte[] body = Arrays.copyOfRange(frame, 4, frame.length);
        Random random = new Random(42);
        for (int i = 0; i < 500; i++) {
            byte[] damaged = body.clone();
            int at = random.nextInt(damaged.length);
            damaged[at] ^= (byte) (1 + random.nextInt(255));
            assertThatThrownBy(() -> ControllerWire.decode(damaged)).isInstanceOf(MalformedFrameException.class);
        }
        assertThatThrownBy(() -> ControllerWire.decode(new byte[3])).isInstanceOf(MalformedFrameException.class);
        assertThatThrownBy(() -> ControllerWire.checkSize(Integer.MAX_VALUE))
                .isInstanceOf(MalformedFrameException.class);
        assertThatThrownBy(() -> ControllerWire.checkSize(-1)).isInstanceOf(MalformedFrameException.class);
    }
}
