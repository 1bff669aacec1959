package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupApi.JoinMember;
import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;

/**
 * The classic group membership APIs (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) translated to
 * {@link GroupCoordinator} calls. {@link GroupHandler} has already checked the group ACL and that this node
 * coordinates the group; each answer goes to {@code respond} on the loop thread of the group's shard.
 */
final class GroupMembershipHandler {

    private final GroupCoordinator coordinator;

    GroupMembershipHandler(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    /** JoinGroup: the coordinator answers through {@code respond}, now or when the join phase completes. */
    void handleJoinGroupRequest(RequestContext context, JoinGroupRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        var data = request.data();
        List<Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequestProtocol protocol : data.protocols()) {
            protocols.add(new Protocol(protocol.name(), protocol.metadata()));
        }
        int rebalanceTimeout = version >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs();
        coordinator.joinGroup(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                data.protocolType(),
                protocols,
                data.sessionTimeoutMs(),
                rebalanceTimeout,
                context.clientId(),
                context.clientAddress.toString(),
                version >= 4,
                result -> respond.accept(joinResponse(result, version)));
    }

    static JoinGroupResponse joinResponse(JoinResult result, short version) {
        JoinGroupResponseData data = new JoinGroupResponseData()
                .setErrorCode(ApiErrors.forGroup(result.error()).code())
                .setGenerationId(result.generation())
                .setProtocolType(result.protocolType())
                .setProtocolName(result.protocolName() == null && version < 7 ? "" : result.protocolName())
                .setLeader(result.leaderId() == null ? "" : result.leaderId())
                .setMemberId(result.memberId() == null ? "" : result.memberId())
                .setSkipAssignment(result.skipAssignment() && version >= 9);
        for (JoinMember member : result.members()) {
            data.members()
                    .add(new JoinGroupResponseMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.instanceId())
                            .setMetadata(member.metadata()));
        }
        return new JoinGroupResponse(data, version);
    }

    void handleSyncGroupRequest(RequestContext context, SyncGroupRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestAssignment assignment : data.assignments()) {
            assignments.put(assignment.memberId(), assignment.assignment());
        }
        coordinator.syncGroup(
                data.groupId(),
                data.generationId(),
                data.memberId(),
                data.groupInstanceId(),
                data.protocolType(),
                data.protocolName(),
                assignments,
                result -> respond.accept(syncResponse(result)));
    }

    static SyncGroupResponse syncResponse(SyncResult result) {
        return new SyncGroupResponse(new SyncGroupResponseData()
                .setErrorCode(ApiErrors.forGroup(result.error()).code())
                .setProtocolType(result.protocolType())
                .setProtocolName(result.protocolName())
                .setAssignment(result.assignment()));
    }

    void handleHeartbeatRequest(RequestContext context, HeartbeatRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        coordinator.heartbeat(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                data.generationId(),
                error -> respond.accept(new HeartbeatResponse(new HeartbeatResponseData()
                        .setErrorCode(ApiErrors.forGroup(error).code()))));
    }

    void handleLeaveGroupRequest(
            RequestContext context, LeaveGroupRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        List<LeaveMember> leaving = new ArrayList<>();
        for (MemberIdentity member : request.members()) {
            leaving.add(new LeaveMember(member.memberId(), member.groupInstanceId()));
        }
        coordinator.leaveGroup(request.data().groupId(), leaving, result -> {
            if (result.error() != GroupError.NONE) {
                respond.accept(request.getErrorResponse(
                        0, ApiErrors.forGroup(result.error()).exception()));
                return;
            }
            List<GroupError> errors = result.members();
            List<MemberResponse> responses = new ArrayList<>();
            for (int i = 0; i < leaving.size(); i++) {
                responses.add(new MemberResponse()
                        .setMemberId(leaving.get(i).memberId())
                        .setGroupInstanceId(leaving.get(i).instanceId())
                        .setErrorCode(ApiErrors.forGroup(errors.get(i)).code()));
            }
            Errors topLevel = Errors.NONE;
            if (version < 3 && !errors.isEmpty()) {
                topLevel = ApiErrors.forGroup(errors.get(0));
            }
            respond.accept(new LeaveGroupResponse(responses, topLevel, 0, version));
        });
    }
}
