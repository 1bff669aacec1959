/**
 * Wiring only: {@link dev.strait.broker.server.BrokerConfig} (Kafka config names),
 * {@link dev.strait.broker.server.BrokerServer} (one node), {@link dev.strait.broker.server.EmbeddedCluster}
 * (in-JVM cluster for tests and embedding) and {@link dev.strait.broker.server.BrokerMain}.
 */
package dev.strait.broker.server;
