package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.ScramCredentialEntry;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bootstrap credentials are written only for users that have none, judged on metadata that has caught up
 * with the quorum: a restarted node's image is empty until then, and writing "missing" users from it would reset
 * every password changed since the cluster was formatted.
 */
class ScramBootstrapTest {

    private static final ScramBootstrap ALICE = ScramBootstrap.parse("SCRAM-SHA-512=[name=alice,password=first]");

    @Test
    void writesNothingWhileTheMetadataHasNotCaughtUp() {
        List<List<ScramCredentialEntry>> writes = new ArrayList<>();
        MetadataSource behind = source(false, writes);

        assertThatThrownBy(() -> ALICE.apply(behind))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("caught up");
        assertThat(writes).isEmpty();
    }

    @Test
    void writesAMissingUserOnceCaughtUp() {
        List<List<ScramCredentialEntry>> writes = new ArrayList<>();

        assertThat(ALICE.apply(source(true, writes))).isEqualTo(1);
        assertThat(writes).hasSize(1);
        assertThat(writes.get(0)).extracting(ScramCredentialEntry::user).containsExactly("alice");
    }

    /** A source with no credentials that records what is written and says whether it has caught up. */
    @SuppressWarnings("unchecked")
    private static MetadataSource source(boolean caughtUp, List<List<ScramCredentialEntry>> writes) {
        return (MetadataSource) Proxy.newProxyInstance(
                MetadataSource.class.getClassLoader(),
                new Class<?>[] {MetadataSource.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "caughtUp" -> caughtUp;
                    case "scramCredentials" -> List.of();
                    case "alterScramCredentials" -> {
                        writes.add((List<ScramCredentialEntry>) args[0]);
                        yield null;
                    }
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
