package dev.strait.broker.protocol;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The Kafka APIs a companion broker serves, with the version ranges it advertises, as plain values for the
 * reference documentation (the adapter's kafka-clients types stay in this package).
 */
public final class ServedApis {

    /**
     * One API.
     *
     * @param when empty when every node serves it; else the condition under which it is advertised
     */
    public record Api(String name, int key, int minVersion, int maxVersion, String when) {}

    private ServedApis() {}

    /** Every API served, by key. */
    public static List<Api> all() {
        List<Api> apis = new ArrayList<>();
        for (ApiKeys key : SupportedApis.IMPLEMENTED) {
            apis.add(api(key, ""));
        }
        for (ApiKeys key : SupportedApis.GROUP_APIS) {
            apis.add(api(key, "always (by the group coordinator every node runs)"));
        }
        for (ApiKeys key : SupportedApis.TRANSACTION_APIS) {
            apis.add(api(key, "always (by the transaction coordinator every node runs)"));
        }
        for (ApiKeys key : SupportedApis.QUORUM_APIS) {
            apis.add(api(key, "on a node of a Raft metadata quorum"));
        }
        apis.sort(Comparator.comparingInt(Api::key));
        return apis;
    }

    private static Api api(ApiKeys key, String when) {
        return new Api(key.name, key.id, SupportedApis.minVersion(key), SupportedApis.maxVersion(key), when);
    }
}
