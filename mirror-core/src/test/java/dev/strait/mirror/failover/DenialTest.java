package dev.strait.mirror.failover;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.mirror.sync.SyncException;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

class DenialTest {

    @Test
    void aWrappedTopicRefusalBecomesOneLineNamingTheClusterTheOperationAndTheGrant() {
        RuntimeException e = new SyncException(
                "could not describe topic ledger: Topic authorization failed.",
                new TopicAuthorizationException("Topic authorization failed."));

        RuntimeException translated = Denial.translate(e, "target", "READ", "topic", Set.of("ledger"));

        assertThat(translated).isInstanceOf(FailoverException.class).hasCause(e);
        assertThat(translated.getMessage())
                .isEqualTo("the target cluster denied the principal of the target. settings READ on topic ledger "
                        + "(TopicAuthorizationException): grant it (kafka-acls --bootstrap-server <target> --add "
                        + "--allow-principal User:<failback> --operation Read --topic ledger)");
    }

    @Test
    void theTopicsKafkaNamesWinOverTheStepsTopics() {
        String line = Denial.line(
                "source",
                new TopicAuthorizationException(Set.of("payments", "orders")),
                "DESCRIBE_CONFIGS",
                "topic",
                List.of("ledger"));

        assertThat(line)
                .contains("DESCRIBE_CONFIGS on topic orders, payments")
                .endsWith("--operation DescribeConfigs --topic orders)");
    }

    @Test
    void aGroupRefusalNamesTheGroup() {
        String line =
                Denial.line("source", new GroupAuthorizationException("denied"), "READ", "group", Set.of("billing"));

        assertThat(line)
                .contains("source. settings READ on group billing")
                .endsWith("--operation Read --group billing)");
    }

    @Test
    void anythingElseIsLeftAlone() {
        RuntimeException e = new SyncException("timed out", new TimeoutException("slow"));

        assertThat(Denial.translate(e, "target", "READ", "topic", Set.of("ledger")))
                .isSameAs(e);
        assertThat(Denial.find(e)).isNull();
    }

    @Test
    void aGuardedStepThatIsRefusedFailsWithTheLineAndOtherFailuresPassThrough() {
        RuntimeException timeout = new TimeoutException("no answer");

        assertThat(Denial.guard("source", "READ", "topic", List.of("ledger"), () -> 7))
                .isEqualTo(7);
        assertThatThrownBy(() -> Denial.guard("source", "READ", "topic", List.of("ledger"), () -> {
                    throw new TopicAuthorizationException("Topic authorization failed.");
                }))
                .isInstanceOf(FailoverException.class)
                .hasMessageStartingWith(
                        "the source cluster denied the principal of the source. settings READ on " + "topic ledger");
        assertThatThrownBy(() -> Denial.guard("source", "READ", "topic", List.of("ledger"), () -> {
                    throw timeout;
                }))
                .isSameAs(timeout);
    }
}
