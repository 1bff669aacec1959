package dev.strait.broker.protocol;

/** How clients reach this node, as returned in Metadata and DescribeCluster. */
public record BrokerEndpoint(int nodeId, String host, int port) {}
