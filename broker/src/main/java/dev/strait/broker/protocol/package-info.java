/**
 * The adapter to kafka-clients' protocol classes ({@code org.apache.kafka.common.requests}, {@code .message},
 * {@code .protocol}, {@code .record}, {@code .network}), which are not public API: every import of them in the
 * broker lives in this package (enforced by checkstyle: build-tools/checkstyle), so that a kafka-clients upgrade
 * touches only this package.
 *
 * <p>{@link dev.strait.broker.protocol.KafkaApis} parses frames with {@code RequestHeader.parse} and
 * {@code RequestContext.parseRequest}, routes each to its API's handler ({@code ProduceHandler},
 * {@code FetchHandler}, {@code PartitionOffsetsHandler}, {@code MetadataHandler}, {@code TopicAdminHandler},
 * {@code PartitionAdminHandler}, {@code GroupHandler}; entry points named {@code handleXRequest}), which execute
 * them against the replica layer and map exceptions to Kafka error codes in one place ({@code ApiErrors}), and
 * serializes responses with {@code RequestContext.buildResponseSend}; fetched log slices go out zero-copy as
 * {@code FileSliceRecords}. The implemented APIs are advertised with Kafka 4.1.1's ranges
 * ({@code SupportedApis}); nothing else is advertised. The group APIs ({@code GroupHandler}) are advertised only
 * when a {@code GroupCoordinator} is wired in; {@code OffsetsTopicLog} stores its records in the internal topic
 * {@code __consumer_offsets}, which Metadata lists only when asked for by name (as internal), and which cannot be
 * produced to or deleted. {@code GroupHandler} checks what every group API checks first and hands each API on to
 * {@code GroupMembershipHandler}, {@code GroupOffsetsHandler}, {@code GroupAdminHandler} or
 * {@code FindCoordinatorHandler}.
 */
package dev.strait.broker.protocol;
