package dev.strait.mirror.linked;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TopicPlanTest {
    private static final String SERVERS = "src-1:9092,src-2:9092";
    private static final String ID = "AAAAAAAAAAAAAAAAAAAAAA";
    private static final TopicPlan.Source ORDERS =
            new TopicPlan.Source("orders", ID, 3, Map.of("retention.ms", "3600000"));

    @Test
    void aMissingTargetTopicIsCreatedAsAMirrorWithTheSourcePartitionsSettingsAndId() {
        TopicPlan.Decision d = TopicPlan.decide(ORDERS, null, SERVERS, true);

        assertThat(d).isInstanceOf(TopicPlan.Create.class);
        TopicPlan.Create create = (TopicPlan.Create) d;
        assertThat(create.partitions()).isEqualTo(3);
        assertThat(create.configs())
                .containsEntry("retention.ms", "3600000")
                .containsEntry(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, SERVERS)
                .containsEntry(MirrorTopicConfigs.SOURCE_TOPIC_ID, ID)
                .containsEntry(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_MIRRORING);
    }

    @Test
    void aSourceThatCarriesMirrorConfigsOfItsOwnDoesNotRedirectTheMirror() {
        TopicPlan.Source chained = new TopicPlan.Source(
                "orders", ID, 1, Map.of(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, "elsewhere:1"));

        TopicPlan.Create create = (TopicPlan.Create) TopicPlan.decide(chained, null, SERVERS, true);

        assertThat(create.configs()).containsEntry(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, SERVERS);
    }

    @Test
    void anOrdinaryTopicOfTheSameNameIsSkipped() {
        TopicPlan.Decision d =
                TopicPlan.decide(ORDERS, new TopicPlan.Target(3, Map.of("retention.ms", "1")), SERVERS, true);

        assertThat(d).isEqualTo(new TopicPlan.Skip("exists on the target and is not a mirror topic"));
    }

    @Test
    void aPromotedMirrorIsSkippedAndNeverGrown() {
        TopicPlan.Decision d = TopicPlan.decide(ORDERS, target(1, ID, SERVERS, "promoted"), SERVERS, true);

        assertThat(d).isInstanceOf(TopicPlan.Skip.class);
        assertThat(((TopicPlan.Skip) d).reason()).contains("promoted");
    }

    @Test
    void aMirrorOfAnEarlierIncarnationOfTheSourceTopicIsSkipped() {
        TopicPlan.Decision d =
                TopicPlan.decide(ORDERS, target(3, "BBBBBBBBBBBBBBBBBBBBBB", SERVERS, ""), SERVERS, true);

        assertThat(d).isInstanceOf(TopicPlan.Skip.class);
        assertThat(((TopicPlan.Skip) d).reason()).contains("re-created");
    }

    @Test
    void aMirrorOfAnotherClusterOrAnotherTopicIsSkipped() {
        assertThat(TopicPlan.decide(ORDERS, target(3, "", "other:9092", ""), SERVERS, true))
                .isInstanceOf(TopicPlan.Skip.class);
        Map<String, String> renamed = new HashMap<>(target(3, "", SERVERS, "").configs());
        renamed.put(MirrorTopicConfigs.SOURCE_TOPIC, "payments");
        assertThat(TopicPlan.decide(ORDERS, new TopicPlan.Target(3, renamed), SERVERS, true))
                .isInstanceOf(TopicPlan.Skip.class);
    }

    @Test
    void ourMirrorIsRecognisedByItsPinnedIdWhateverTheServersAreCalledOrBeforePinningByTheServers() {
        assertThat(TopicPlan.decide(ORDERS, target(3, ID, "another-name-for-src:9092", ""), SERVERS, true))
                .isEqualTo(new TopicPlan.Keep(0, Map.of("retention.ms", "3600000")));
        assertThat(TopicPlan.decide(ORDERS, target(3, "", " src-2:9092, src-1:9092", "mirroring"), SERVERS, true))
                .isInstanceOf(TopicPlan.Keep.class);
    }

    @Test
    void ourMirrorGrowsWithItsSourceUnlessPartitionSyncIsOffAndNeverShrinks() {
        assertThat(((TopicPlan.Keep) TopicPlan.decide(ORDERS, target(2, ID, SERVERS, ""), SERVERS, true)).growTo())
                .isEqualTo(3);
        assertThat(((TopicPlan.Keep) TopicPlan.decide(ORDERS, target(2, ID, SERVERS, ""), SERVERS, false)).growTo())
                .isZero();
        assertThat(((TopicPlan.Keep) TopicPlan.decide(ORDERS, target(5, ID, SERVERS, ""), SERVERS, true)).growTo())
                .isZero();
    }

    @Test
    void onlySettingsThatDifferAreChangedAndTheMirrorConfigsNever() {
        Map<String, String> configs = new HashMap<>(target(3, ID, SERVERS, "").configs());
        configs.put("retention.ms", "3600000");
        TopicPlan.Source withMirrorConfig = new TopicPlan.Source(
                "orders",
                ID,
                3,
                Map.of("retention.ms", "3600000", "cleanup.policy", "compact", MirrorTopicConfigs.STATE, "promoted"));

        TopicPlan.Decision d = TopicPlan.decide(withMirrorConfig, new TopicPlan.Target(3, configs), SERVERS, true);

        assertThat(d).isEqualTo(new TopicPlan.Keep(0, Map.of("cleanup.policy", "compact")));
    }

    private static TopicPlan.Target target(int partitions, String pinnedId, String servers, String state) {
        Map<String, String> c = new HashMap<>();
        c.put(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, servers);
        c.put(MirrorTopicConfigs.SOURCE_TOPIC, "");
        c.put(MirrorTopicConfigs.SOURCE_TOPIC_ID, pinnedId);
        c.put(MirrorTopicConfigs.STATE, state);
        c.put("retention.ms", "604800000");
        return new TopicPlan.Target(partitions, c);
    }

    @Test
    void aLinkedSourceIsNamedByItsLinkAndAMirrorOfAnotherLinkIsNotOurs() {
        MirrorSource dc1 = MirrorSource.link("dc1");
        TopicPlan.Create create = (TopicPlan.Create) TopicPlan.decide(ORDERS, null, dc1, true);
        assertThat(create.configs())
                .containsEntry("strait.mirror.link", "dc1")
                .doesNotContainKey("strait.mirror.source.bootstrap.servers");

        TopicPlan.Target ours = new TopicPlan.Target(
                3, Map.of("strait.mirror.link", "dc1", "strait.mirror.source.topic.id", "", "strait.mirror.state", ""));
        assertThat(TopicPlan.decide(ORDERS, ours, dc1, true)).isInstanceOf(TopicPlan.Keep.class);

        TopicPlan.Target other = new TopicPlan.Target(
                3, Map.of("strait.mirror.link", "dc2", "strait.mirror.source.topic.id", "", "strait.mirror.state", ""));
        assertThat(TopicPlan.decide(ORDERS, other, dc1, true))
                .isInstanceOfSatisfying(
                        TopicPlan.Skip.class, s -> assertThat(s.reason()).contains("link dc2"));
        assertThat(TopicPlan.decide(ORDERS, target(3, "", SERVERS, ""), dc1, true))
                .isInstanceOf(TopicPlan.Skip.class);
    }
}
