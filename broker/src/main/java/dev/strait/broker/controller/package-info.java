/**
 * The metadata controller and the node side of the metadata quorum (KRaft-style). Every node runs one
 * {@link dev.strait.broker.controller.QuorumLoop} event loop, driven by the thread of its
 * {@link dev.strait.broker.controller.QuorumRuntime}, that drives the Raft node ({@link dev.strait.broker.raft}),
 * applies the committed metadata log to an immutable image, runs the
 * {@link dev.strait.broker.controller.QuorumController} while it is the Raft leader, and sends the node's own
 * registration, heartbeats and mutations to whichever node is the active controller
 * ({@link dev.strait.broker.controller.ControllerCalls}).
 * {@link dev.strait.broker.controller.QuorumMetadataSource} is the {@link dev.strait.broker.metadata.MetadataSource}
 * on top of it. Nodes talk over the controller listener with a Strait-internal framed protocol
 * ({@link dev.strait.broker.controller.ControllerWire}, {@link dev.strait.broker.controller.ControllerChannel});
 * no Kafka protocol classes are used here.
 *
 * <p>Threads: one loop thread per node owns all controller and Raft state (no locks); the channel has one reader
 * and one writer thread per connection that only enqueue to, or drain for, the loop; listeners and callbacks run
 * on one callback thread per node. Messages between them are immutable records.
 */
package dev.strait.broker.controller;
