package dev.strait.broker.metadata;

/** A broker as the cluster knows it: id, the client listener it advertises, and whether it is fenced. */
public record BrokerRegistration(int id, String host, int port, boolean fenced) {}
