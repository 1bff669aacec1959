/**
 * The companion broker cluster: a replicated, Kafka-wire-compatible broker. The packages, from the bottom up:
 * {@code log} (storage), {@code raft} (the metadata quorum's state machine), {@code network} (the reactor),
 * {@code group} (consumer groups), {@code replication} (the replica state machine), {@code metadata},
 * {@code replica} (partitions and fetchers), {@code controller} (the active controller), {@code protocol} (the
 * adapter to kafka-clients' wire classes, which consults {@code security} for ACL decisions and credentials) and
 * {@code server} (configuration and wiring). The layering is held by checkstyle
 * ({@code build-tools/checkstyle/import-control-strait-broker.xml}). Nothing here depends on the mirror.
 */
package dev.strait.broker;
