package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupApi.GroupDescription;
import dev.strait.broker.group.GroupApi.GroupListing;
import dev.strait.broker.group.GroupApi.MemberDescription;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.RequestContext;

/**
 * The group admin APIs (ListGroups, DescribeGroups, DeleteGroups) translated to {@link GroupCoordinator} calls.
 * Those about several groups answer each group the principal may not act on in its own entry, and the whole
 * request once every group's shard has answered (see {@link AnswerSlots}), from that shard's loop thread.
 */
final class GroupAdminHandler {

    private final GroupCoordinator coordinator;
    private final RequestAuthorizer authorizer;

    GroupAdminHandler(GroupCoordinator coordinator, RequestAuthorizer authorizer) {
        this.coordinator = coordinator;
        this.authorizer = authorizer;
    }

    void handleListGroupsRequest(
            RequestContext context, ListGroupsRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        // As Kafka: DESCRIBE on the cluster lists every group, else only the groups the principal may DESCRIBE.
        boolean all = authorizer.cluster(context, AclOperation.DESCRIBE);
        coordinator.listGroups(listings -> {
            ListGroupsResponseData response = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
            for (GroupListing listing : listings) {
                if (!all && !authorizer.group(context, AclOperation.DESCRIBE, listing.groupId())) {
                    continue;
                }
                if (!data.statesFilter().isEmpty()
                        && data.statesFilter().stream().noneMatch(s -> s.equalsIgnoreCase(listing.stateName()))) {
                    continue;
                }
                if (!data.typesFilter().isEmpty()
                        && data.typesFilter().stream().noneMatch(t -> t.equalsIgnoreCase(listing.type()))) {
                    continue;
                }
                response.groups()
                        .add(new ListedGroup()
                                .setGroupId(listing.groupId())
                                .setProtocolType(listing.protocolType())
                                .setGroupState(listing.stateName())
                                .setGroupType(listing.type()));
            }
            respond.accept(new ListGroupsResponse(response));
        });
    }

    /** DescribeGroups: answered once the shard of every group asked for has described it. */
    void handleDescribeGroupsRequest(
            RequestContext context, DescribeGroupsRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        List<String> groupIds = request.data().groups();
        AnswerSlots<DescribedGroup> answers = new AnswerSlots<>(groupIds.size(), all -> {
            DescribeGroupsResponseData response = new DescribeGroupsResponseData();
            response.groups().addAll(all);
            respond.accept(new DescribeGroupsResponse(response));
        });
        if (groupIds.isEmpty()) {
            respond.accept(new DescribeGroupsResponse(new DescribeGroupsResponseData()));
            return;
        }
        for (int i = 0; i < groupIds.size(); i++) {
            String groupId = groupIds.get(i);
            int index = i;
            if (!authorizer.group(context, AclOperation.DESCRIBE, groupId)) {
                answers.fill(
                        index,
                        new DescribedGroup()
                                .setGroupId(groupId)
                                .setGroupState("")
                                .setProtocolType("")
                                .setProtocolData("")
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            coordinator.describeGroup(groupId, description -> {
                answers.fill(index, describedGroup(groupId, description, version));
            });
        }
    }

    private static DescribedGroup describedGroup(String groupId, GroupDescription description, short version) {
        DescribedGroup group = new DescribedGroup()
                .setGroupId(groupId)
                .setGroupState(description.state().kafkaName())
                .setProtocolType(description.protocolType())
                .setProtocolData(description.protocolName() == null ? "" : description.protocolName())
                .setErrorCode(Errors.NONE.code());
        if (description.error() == GroupError.GROUP_ID_NOT_FOUND) {
            if (version >= 6) {
                group.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " not found.");
            }
        } else if (description.error() != GroupError.NONE) {
            // The group's shard moved or is loading since the request was routed here: the client retries.
            group.setErrorCode(ApiErrors.forGroup(description.error()).code());
        }
        for (MemberDescription member : description.members()) {
            group.members()
                    .add(new DescribedGroupMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.instanceId())
                            .setClientId(member.clientId())
                            .setClientHost(member.clientHost())
                            .setMemberMetadata(member.metadata())
                            .setMemberAssignment(member.assignment()));
        }
        return group;
    }

    /** DeleteGroups: answered once every group's deletion is durable (or failed). */
    void handleDeleteGroupsRequest(
            RequestContext context, DeleteGroupsRequest request, Consumer<AbstractResponse> respond) {
        List<String> groups = request.data().groupsNames();
        AnswerSlots<DeletableGroupResult> answers = new AnswerSlots<>(groups.size(), all -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            response.results().addAll(all);
            respond.accept(new DeleteGroupsResponse(response));
        });
        if (groups.isEmpty()) {
            respond.accept(new DeleteGroupsResponse(new DeleteGroupsResponseData()));
            return;
        }
        for (int i = 0; i < groups.size(); i++) {
            String groupId = groups.get(i);
            int index = i;
            if (!authorizer.group(context, AclOperation.DELETE, groupId)) {
                answers.fill(index, deletableGroup(groupId, Errors.GROUP_AUTHORIZATION_FAILED));
                continue;
            }
            coordinator.deleteGroup(
                    groupId, error -> answers.fill(index, deletableGroup(groupId, ApiErrors.forGroup(error))));
        }
    }

    private static DeletableGroupResult deletableGroup(String groupId, Errors error) {
        return new DeletableGroupResult().setGroupId(groupId).setErrorCode(error.code());
    }
}
