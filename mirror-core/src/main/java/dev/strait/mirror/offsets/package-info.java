/**
 * The no-loss bookkeeping of one stream: {@link dev.strait.mirror.offsets.OffsetTracker} records what the stream
 * polled per source partition and computes the offsets it may commit, never past a copy the target has not
 * acknowledged. Kept apart from {@code mirror.engine} so the invariant can be read and tested without a consumer
 * or producer. Not thread-safe: each instance lives on its stream's thread. Imports only kafka-clients' public
 * types; only {@code mirror.engine} imports it.
 */
package dev.strait.mirror.offsets;
