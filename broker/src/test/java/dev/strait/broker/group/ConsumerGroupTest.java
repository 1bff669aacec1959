package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.ConsumerGroupApi.Heartbeat;
import dev.strait.broker.group.ConsumerGroupApi.HeartbeatResult;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The consumer group state machine (KIP-848) without the network or the log: time and topics are passed in. */
class ConsumerGroupTest {

    private static final int SESSION_MS = 45_000;

    private final ConsumerGroup group = new ConsumerGroup("g", SESSION_MS, 5_000);
    private final Map<String, Integer> topics = new HashMap<>(Map.of("t", 6));
    private long nowMs = 1_000;

    /** A client that heartbeats what it owns and gives up revoked partitions at once, as the real consumer does. */
    private final class Client {
        final String memberId;
        int epoch;
        SortedMap<String, SortedSet<Integer>> owned = new TreeMap<>();
        List<String> topicNames = List.of("t");
        String regex;

        Client(String memberId) {
            this.memberId = memberId;
        }

        HeartbeatResult heartbeat() {
            boolean joining = epoch == 0;
            HeartbeatResult result = group.heartbeat(
                    new Heartbeat(
                            memberId,
                            epoch,
                            null,
                            null,
                            joining ? 300_000 : -1,
                            joining ? topicNames : null,
                            joining ? regex : null,
                            null,
                            joining ? null : ConsumerGroup.copy(owned),
                            "client",
                            "/127.0.0.1"),
                    topics,
                    nowMs);
            if (result.error() == GroupError.NONE) {
                epoch = result.memberEpoch();
                if (result.assignment() != null) {
                    owned = ConsumerGroup.copy(result.assignment());
                }
            }
            assertNoPartitionOwnedTwice();
            return result;
        }

        int count() {
            return owned.values().stream().mapToInt(Set::size).sum();
        }
    }

    /** The invariant: no partition is held (assigned or awaiting revocation) by two members at once. */
    private void assertNoPartitionOwnedTwice() {
        Set<String> seen = new HashSet<>();
        for (ConsumerGroup.Member member : group.members.values()) {
            for (Map<String, SortedSet<Integer>> held : List.of(member.assigned, member.pendingRevocation)) {
                held.forEach((t, ps) -> ps.forEach(p -> assertThat(seen.add(t + "-" + p))
                        .as("partition %s-%d owned twice", t, p)
                        .isTrue()));
            }
        }
    }

    private static void heartbeatUntilStable(List<Client> clients) {
        for (int round = 0; round < 10; round++) {
            clients.forEach(Client::heartbeat);
        }
    }

    @Test
    void threeMembersShareSixPartitionsTwoEach() {
        // Given
        List<Client> clients = List.of(new Client("a"), new Client("b"), new Client("c"));

        // When
        heartbeatUntilStable(clients);

        // Then
        assertThat(clients).allSatisfy(c -> assertThat(c.count()).isEqualTo(2));
        assertThat(group.state()).isEqualTo(ConsumerGroup.State.STABLE);
        assertThat(group.groupEpoch).isEqualTo(3);
        assertThat(clients).allSatisfy(c -> assertThat(c.epoch).isEqualTo(3));
    }

    @Test
    void aLeavingMemberHandsItsPartitionsToTheOthersAndAJoiningOneGetsSomeOnlyAfterRevocation() {
        // Given
        Client a = new Client("a");
        Client b = new Client("b");
        Client c = new Client("c");
        heartbeatUntilStable(List.of(a, b, c));

        // When: c leaves
        HeartbeatResult left = group.heartbeat(
                new Heartbeat("c", -1, null, null, -1, null, null, null, null, "client", "/h"), topics, nowMs);
        heartbeatUntilStable(List.of(a, b));

        // Then
        assertThat(left.memberEpoch()).isEqualTo(-1);
        assertThat(a.count() + b.count()).isEqualTo(6);
        assertThat(a.count()).isEqualTo(3);

        // When: d joins; a first heartbeat of a does not give d anything a still owns
        Client d = new Client("d");
        d.heartbeat();
        assertThat(d.count()).isZero();
        assertThat(group.state()).isEqualTo(ConsumerGroup.State.RECONCILING);
        heartbeatUntilStable(List.of(a, b, d));

        // Then
        assertThat(List.of(a, b, d)).allSatisfy(x -> assertThat(x.count()).isEqualTo(2));
        assertThat(group.state()).isEqualTo(ConsumerGroup.State.STABLE);
    }

    @Test
    void aMemberThatDoesNotRevokeKeepsItsEpochAndTheOtherWaits() {
        // Given
        Client a = new Client("a");
        heartbeatUntilStable(List.of(a));
        int epochBefore = a.epoch;

        // When: b joins, a heartbeats but claims to still own everything
        Client b = new Client("b");
        b.heartbeat();
        SortedMap<String, SortedSet<Integer>> all = ConsumerGroup.copy(a.owned);
        HeartbeatResult toRevoke = a.heartbeat();
        a.owned = all; // a has not revoked yet
        a.heartbeat();
        a.owned = all;
        b.heartbeat();

        // Then
        assertThat(toRevoke.memberEpoch()).isEqualTo(epochBefore);
        assertThat(toRevoke.assignment()).isNotNull();
        assertThat(toRevoke.assignment().get("t")).hasSize(3);
        assertThat(b.count()).isZero();
        assertThat(group.members.get("a").state).isEqualTo(ConsumerGroup.MemberState.UNREVOKED_PARTITIONS);

        // When: a revokes
        a.owned = ConsumerGroup.copy(toRevoke.assignment());
        heartbeatUntilStable(List.of(a, b));

        // Then
        assertThat(a.count()).isEqualTo(3);
        assertThat(b.count()).isEqualTo(3);
    }

    @Test
    void fencingAndUnknownMembers() {
        // Given
        Client a = new Client("a");
        heartbeatUntilStable(List.of(a));

        // When / Then
        assertThat(heartbeat("a", a.epoch + 1, a.owned).error()).isEqualTo(GroupError.FENCED_MEMBER_EPOCH);
        assertThat(heartbeat("zz", 1, null).error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(heartbeat("", 0, null).error()).isEqualTo(GroupError.INVALID_REQUEST);
        // A lost response: the previous epoch with a subset of the current assignment is accepted.
        Client b = new Client("b");
        heartbeatUntilStable(List.of(a, b));
        int previous = group.members.get("a").previousMemberEpoch;
        assertThat(previous).isPositive();
        assertThat(heartbeat("a", previous, new TreeMap<>()).error()).isEqualTo(GroupError.NONE);
        assertThat(heartbeat("a", previous, null).error()).isEqualTo(GroupError.FENCED_MEMBER_EPOCH);
    }

    private HeartbeatResult heartbeat(String memberId, int epoch, Map<String, SortedSet<Integer>> owned) {
        return group.heartbeat(
                new Heartbeat(memberId, epoch, null, null, 300_000, null, null, null, owned, "c", "/h"), topics, nowMs);
    }

    @Test
    void aStaticMemberAwayKeepsItsPartitionsAndItsSuccessorTakesThemOver() {
        // Given: two members, b static
        Client a = new Client("a");
        heartbeatUntilStable(List.of(a));
        HeartbeatResult joined = group.heartbeat(
                new Heartbeat("b", 0, "inst-b", null, 300_000, List.of("t"), null, null, null, "c", "/h"),
                topics,
                nowMs);
        Client b = new Client("b");
        b.epoch = joined.memberEpoch();
        heartbeatUntilStable(List.of(a, b));
        SortedMap<String, SortedSet<Integer>> ofB = ConsumerGroup.copy(b.owned);
        int epoch = group.groupEpoch;

        // When: b leaves with -2, a keeps heartbeating, then b2 joins with b's instance id
        HeartbeatResult away = group.heartbeat(
                new Heartbeat("b", -2, "inst-b", null, -1, null, null, null, null, "c", "/h"), topics, nowMs);
        heartbeatUntilStable(List.of(a));
        HeartbeatResult taken = group.heartbeat(
                new Heartbeat("b3", 0, "inst-b", null, 300_000, List.of("t"), null, null, null, "c", "/h"),
                topics,
                nowMs);

        // Then
        assertThat(away.memberEpoch()).isEqualTo(-2);
        assertThat(a.count()).isEqualTo(3);
        assertThat(taken.error()).isEqualTo(GroupError.NONE);
        assertThat(taken.assignment()).isEqualTo(ofB);
        assertThat(group.groupEpoch).isEqualTo(epoch);
        assertThat(group.members).containsOnlyKeys("a", "b3");
    }

    @Test
    void anActiveStaticMembersInstanceIdIsRefusedToAnother() {
        // Given
        group.heartbeat(
                new Heartbeat("b", 0, "inst", null, 300_000, List.of("t"), null, null, null, "c", "/h"), topics, nowMs);

        // When
        HeartbeatResult refused = group.heartbeat(
                new Heartbeat("c", 0, "inst", null, 300_000, List.of("t"), null, null, null, "c", "/h"), topics, nowMs);

        // Then
        assertThat(refused.error()).isEqualTo(GroupError.UNRELEASED_INSTANCE_ID);
    }

    @Test
    void aMemberWhoseSessionExpiresIsRemovedAndAMemberThatDoesNotRevokeInTimeToo() {
        // Given
        Client a = new Client("a");
        Client b = new Client("b");
        heartbeatUntilStable(List.of(a, b));
        int epoch = group.groupEpoch;

        // When
        nowMs += SESSION_MS - 1;
        a.heartbeat();
        nowMs += 2;
        boolean expired = group.expire(nowMs);

        // Then
        assertThat(expired).isTrue();
        assertThat(group.members).containsOnlyKeys("a");
        assertThat(group.groupEpoch).isEqualTo(epoch + 1);
        a.heartbeat();
        assertThat(a.count()).isEqualTo(6);
    }

    @Test
    void regexSubscriptionsPickUpNewTopicsAndPartitionCountChangesStartANewEpoch() {
        // Given
        Client a = new Client("a");
        a.topicNames = null;
        a.regex = "orders-.*";
        topics.put("orders-1", 2);
        heartbeatUntilStable(List.of(a));
        assertThat(a.owned).containsOnlyKeys("orders-1");
        int epoch = group.groupEpoch;

        // When
        topics.put("orders-2", 3);
        topics.put("orders-1", 4);
        a.heartbeat();
        a.heartbeat();

        // Then
        assertThat(group.groupEpoch).isEqualTo(epoch + 1);
        assertThat(a.owned.get("orders-1")).containsExactly(0, 1, 2, 3);
        assertThat(a.owned.get("orders-2")).containsExactly(0, 1, 2);
    }

    @Test
    void assignorsAreDeterministicAndBalanced() {
        // Given
        SortedMap<String, ConsumerAssignors.AssignmentMember> members = new TreeMap<>();
        for (String id : List.of("m3", "m1", "m2")) {
            members.put(id, new ConsumerAssignors.AssignmentMember(Set.of("x", "y"), Map.of()));
        }
        Map<String, Integer> counts = Map.of("x", 4, "y", 3);

        // When
        var uniform = ConsumerAssignors.assign("uniform", members, counts);
        var again = ConsumerAssignors.assign("uniform", members, counts);
        var range = ConsumerAssignors.assign("range", members, counts);

        // Then
        assertThat(uniform).isEqualTo(again);
        assertThat(uniform.values())
                .extracting(a -> a.values().stream().mapToInt(Set::size).sum())
                .containsExactlyInAnyOrder(3, 2, 2);
        assertThat(range.get("m1"))
                .isEqualTo(Map.of("x", new TreeSet<>(List.of(0, 1)), "y", new TreeSet<>(List.of(0))));
        assertThat(range.get("m3")).isEqualTo(Map.of("x", new TreeSet<>(List.of(3)), "y", new TreeSet<>(List.of(2))));
    }

    @Test
    void uniformIsStickyAndStaysBalancedWhenAMemberJoins() {
        // Given: a and b split 7 partitions 4/3
        SortedMap<String, ConsumerAssignors.AssignmentMember> members = new TreeMap<>();
        members.put(
                "a",
                new ConsumerAssignors.AssignmentMember(Set.of("t"), Map.of("t", new TreeSet<>(List.of(0, 1, 2, 3)))));
        members.put(
                "b", new ConsumerAssignors.AssignmentMember(Set.of("t"), Map.of("t", new TreeSet<>(List.of(4, 5, 6)))));
        members.put("c", new ConsumerAssignors.AssignmentMember(Set.of("t"), Map.of()));

        // When
        var assignment = ConsumerAssignors.assign("uniform", members, Map.of("t", 7));

        // Then
        assertThat(assignment.get("a").get("t")).hasSize(3).isSubsetOf(0, 1, 2, 3);
        assertThat(assignment.get("b").get("t")).hasSize(2).isSubsetOf(4, 5, 6);
        assertThat(assignment.get("c").get("t")).hasSize(2);
    }

    @Test
    void offsetCommitsAndFetchesOfMembersAreValidatedByEpoch() {
        // Given
        Client a = new Client("a");
        heartbeatUntilStable(List.of(a));

        // Then
        assertThat(group.validateOffsetCommit("a", a.epoch)).isEqualTo(GroupError.NONE);
        assertThat(group.validateOffsetCommit("a", a.epoch - 1)).isEqualTo(GroupError.STALE_MEMBER_EPOCH);
        assertThat(group.validateOffsetCommit("zz", 1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(group.validateOffsetCommit("", -1)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(group.validateOffsetFetch(null, -1)).isEqualTo(GroupError.NONE);
        assertThat(group.validateOffsetFetch("a", a.epoch + 1)).isEqualTo(GroupError.STALE_MEMBER_EPOCH);
    }

    @Test
    void theRecordHoldsEpochsMembersAndAssignments() {
        // Given
        Client a = new Client("a");
        Client b = new Client("b");
        heartbeatUntilStable(List.of(a, b));

        // When
        byte[] value = ConsumerGroupRecords.value(group);
        ConsumerGroup loaded = ConsumerGroupRecords.read("g", value, SESSION_MS, 5_000, nowMs);

        // Then
        assertThat(ConsumerGroupRecords.value(loaded)).isEqualTo(value);
        assertThat(loaded.groupEpoch).isEqualTo(group.groupEpoch);
        assertThat(loaded.members.get("a").assigned).isEqualTo(group.members.get("a").assigned);
        assertThat(loaded.state()).isEqualTo(ConsumerGroup.State.STABLE);
        assertThat(ConsumerGroupRecords.groupIdOf(ConsumerGroupRecords.key("g")))
                .isEqualTo("g");
        assertThat(ConsumerGroupRecords.groupIdOf(GroupRecords.groupKey("g"))).isNull();
    }
}
