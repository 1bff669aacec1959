/**
 * Storage layer of the companion broker: one {@link dev.strait.broker.log.PartitionLog} per partition, built for
 * leader/follower replication. It works on raw Kafka v2 record batches (see
 * {@link dev.strait.broker.log.RecordBatchHeader}) and imports nothing from {@code org.apache.kafka}; an adapter
 * package converts between these types and kafka-clients' protocol classes.
 *
 * <h2>Classes</h2>
 * {@link dev.strait.broker.log.PartitionLog} is the API: append, read, truncation, flush, DeleteRecords, retention
 * and compaction of one partition, with its offsets. {@code PartitionLogLoader} opens a partition directory for it
 * (see Recovery below). Its parts: {@code LogSegments} is its segment map (the active segment, reads across
 * segments, deleting runs of them, when to roll); {@code PreparedAppend} checks and stamps the batches of each kind
 * of append before they are written; {@code RecoveryPoint} tracks what is known flushed and runs the flushes,
 * {@link dev.strait.broker.log.PendingFlush} being one group-commit flush; {@code Retention} chooses and deletes
 * the segments that retention removes; {@code LogCompaction} holds the cleaner checkpoint and starts and swaps in
 * compaction passes, {@link dev.strait.broker.log.CompactionTask} being one pass; {@code IoBoundary} turns I/O
 * errors into an offline log. A {@link dev.strait.broker.log.LogSegment} is
 * one {@code .log} file with its {@code OffsetIndex} and {@code TimeIndex} (both {@code SparseIndexFile}s);
 * {@link dev.strait.broker.log.LeaderEpochCache} holds the leader epochs. The files: {@code LogFiles} names them,
 * {@code CheckpointFile} replaces small text files atomically, {@code LogStateFile} is the log-state checkpoint,
 * {@link dev.strait.broker.log.PartitionMetadataFile} the topic id, {@code FileIo} reads and writes whole buffers.
 * Batches: {@link dev.strait.broker.log.RecordBatchHeader} is a view of one v2 batch header,
 * {@link dev.strait.broker.log.RecordBatches} splits a buffer into them, {@link dev.strait.broker.log.Varints}
 * decodes record fields. {@link dev.strait.broker.log.LogConfig} holds a topic's log settings.
 *
 * <h2>Files in a partition directory {@code <topic>-<partition>}</h2>
 * <ul>
 *   <li>{@code <baseOffset, 20 digits>.log}: whole batches back to back, byte-identical to Kafka's format.</li>
 *   <li>{@code .index} / {@code .timeindex}: sparse offset and time indexes per segment. Derived data: rebuilt from
 *       the log file every time the log is opened, so a missing or damaged index never matters.</li>
 *   <li>{@code leader-epoch-checkpoint}: the {@link dev.strait.broker.log.LeaderEpochCache}.</li>
 *   <li>{@code log-state-checkpoint} ({@code LogStateFile}): log start offset, recovery point, high watermark, and
 *       for compacted logs the cleaner checkpoint (offsets below it were deduplicated by an earlier pass) and the
 *       timestamp of the oldest tombstone the last pass kept.</li>
 *   <li>{@code <first>-<last>.cleaned} / {@code .swap}: a compaction pass's output being written / committed; see
 *       {@link dev.strait.broker.log.CompactionTask}.</li>
 *   <li>{@code .clean-shutdown}: written by {@code close()}, removed by open.</li>
 * </ul>
 * Checkpoints are replaced atomically (temp file, fsync, rename, directory fsync).
 *
 * <h2>Invariants</h2>
 * logStartOffset &lt;= highWatermark &lt;= logEndOffset; batch offsets strictly increase across the whole log;
 * offsets are assigned by the log, consecutively from the log end offset, by rewriting each batch's baseOffset and
 * partitionLeaderEpoch (fields outside the CRC); every offset in a segment fits in an int32 relative to its base
 * offset; only the active (last) segment is written; the leader epoch cache has no entry beyond the log end offset (one
 * at it only when DeleteRecords emptied the log; open and truncation drop entries at or beyond it).
 *
 * <h2>Recovery</h2>
 * Writes can be torn and unflushed bytes lost. On open, segments that may hold unflushed data (at or after the
 * recovery point, or all segments after an unclean shutdown) are validated batch by batch (length, magic, offsets,
 * CRC-32C) and truncated at the first invalid batch; segments after a truncated one are deleted. Segments known to
 * be flushed are only scanned header by header to rebuild the indexes. Then the leader epoch cache is truncated to
 * the recovered log end offset; if any segment went through full recovery, its entries from that segment on are
 * rebuilt from the recovered batches' headers and the recovered data is flushed before the new state checkpoint is
 * written. {@code PartitionLogLoader} does all this. The recovery point advances on {@code flush()}, on segment roll
 * and on close. Before any of this, a compaction swap interrupted after its commit point (a {@code .swap} file) is
 * finished and leftover {@code .cleaned} files are deleted.
 *
 * <h2>Compaction</h2>
 * For {@code cleanup.policy=compact}, the closed segments are rewritten keeping the last record per key; offsets are
 * preserved, so a compacted log has gaps (reads return the next batch at or after the requested offset). Retention
 * applies only when the policy includes {@code delete}.
 *
 * <h2>Threading</h2>
 * Nothing in this package is thread-safe by itself. A {@code PartitionLog} and everything it owns (segments,
 * indexes, epoch cache) must be used under one lock, or from one thread, held by its owner: the replica layer's
 * partition object. Returned {@link dev.strait.broker.log.FileSlice}s may be transferred outside that lock; see
 * their documentation for the race with retention. Time comes from an injected {@link dev.strait.time.Time}.
 */
package dev.strait.broker.log;
