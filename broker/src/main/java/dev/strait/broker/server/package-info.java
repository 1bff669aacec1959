/**
 * Two jobs, both at the top of the broker. Configuration: {@link dev.strait.broker.server.BrokerSettings} gathers
 * every setting, each declared once under Kafka's name (type, default, allowed values, documentation) as a typed
 * constant in the class of its group ({@code NodeSettings}, {@code ClusterSettings}...);
 * {@link dev.strait.broker.server.BrokerConfig} parses a node's properties against it, with {@code ListenerConfig}
 * and {@code QuorumVoters} for the listener and voter formats, and checks how settings fit together; and {@link dev.strait.broker.server.BrokerSettingsDoc} renders {@code config/broker.properties} and the
 * reference from the same table. Wiring: {@link dev.strait.broker.server.BrokerServer} builds and starts one node
 * (metadata source, logs, replica manager, group coordinator, request handling, listeners) and stops it in reverse,
 * {@link dev.strait.broker.server.EmbeddedCluster} runs nodes in one JVM for tests and embedding, and
 * {@link dev.strait.broker.server.BrokerMain} is the process. Its own threads are few: start and close run on the
 * caller's, a {@code strait-scheduler-<id>} thread runs the ISR and retention checks, and a fatal fault halts the
 * node on a thread of its own; the loops it starts belong to the other packages. It may import every broker
 * package but no Kafka protocol classes; the command line, the testkit and the benchmarks import it.
 */
package dev.strait.broker.server;
