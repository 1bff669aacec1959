package dev.strait.broker.raft;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The messages nodes exchange, modelled on KRaft's Vote, BeginQuorumEpoch, Fetch and FetchSnapshot (see
 * PROTOCOL.md §3 and KIP-630) but
 * reduced to the fields the algorithm needs. The broker's adapter maps them to and from the Kafka wire types;
 * this package never sees the wire. Every message carries the sender's current epoch, and a receiver that
 * learns of a higher epoch moves to it before doing anything else.
 */
public sealed interface RaftMessage {

    int source();

    int destination();

    int epoch();

    /**
     * A candidate asks for a vote; {@code lastEntry} is the end of the candidate's log. With {@code preVote} a
     * prospective candidate asks, in its current epoch, whether it <em>could</em> win (KIP-996): nothing is
     * persisted and nobody's epoch moves, so a node cut off from the quorum cannot disrupt it on its return.
     */
    record VoteRequest(int source, int destination, int epoch, OffsetAndEpoch lastEntry, boolean preVote)
            implements RaftMessage {}

    record VoteResponse(int source, int destination, int epoch, boolean granted, boolean preVote)
            implements RaftMessage {}

    /** A new leader announces itself, so voters do not wait for their election timeout to find it. */
    record BeginQuorumEpoch(int source, int destination, int epoch) implements RaftMessage {}

    /**
     * A follower pulls from {@code fetchOffset}; {@code lastFetchedEpoch} is the epoch of its entry at
     * {@code fetchOffset - 1}, which the leader checks against its own log to find divergence.
     */
    record FetchRequest(int source, int destination, int epoch, long fetchOffset, int lastFetchedEpoch)
            implements RaftMessage {}

    /**
     * The answer to a fetch. Echoes the request's {@code fetchOffset} and {@code lastFetchedEpoch} so that a
     * follower applies a response only to the log it asked about (responses may arrive late, twice or out of
     * order). {@code divergingEpoch} is non-null when the follower's log diverges: it names the leader's end
     * offset for the largest epoch not above {@code lastFetchedEpoch}. {@code snapshotId} is non-null when the
     * leader can no longer check or serve the follower's position from its log (the entries were truncated
     * behind a snapshot): the follower must fetch that snapshot with {@link FetchSnapshotRequest} first.
     */
    record FetchResponse(
            int source,
            int destination,
            int epoch,
            FetchError error,
            int leaderId,
            long fetchOffset,
            int lastFetchedEpoch,
            @Nullable OffsetAndEpoch divergingEpoch,
            List<LogEntry> entries,
            long highWatermark,
            @Nullable OffsetAndEpoch snapshotId)
            implements RaftMessage {

        public FetchResponse {
            entries = List.copyOf(entries);
            if (snapshotId != null && (divergingEpoch != null || !entries.isEmpty())) {
                throw new IllegalArgumentException("a snapshot answer carries neither entries nor a diverging epoch");
            }
        }

        /** An answer that does not point at a snapshot. */
        public FetchResponse(
                int source,
                int destination,
                int epoch,
                FetchError error,
                int leaderId,
                long fetchOffset,
                int lastFetchedEpoch,
                @Nullable OffsetAndEpoch divergingEpoch,
                List<LogEntry> entries,
                long highWatermark) {
            this(
                    source,
                    destination,
                    epoch,
                    error,
                    leaderId,
                    fetchOffset,
                    lastFetchedEpoch,
                    divergingEpoch,
                    entries,
                    highWatermark,
                    null);
        }
    }

    /**
     * A follower downloads the leader's snapshot {@code snapshotId} from byte {@code position} of its content, at
     * most {@code maxBytes} at a time (KIP-630's FetchSnapshot).
     */
    record FetchSnapshotRequest(
            int source, int destination, int epoch, OffsetAndEpoch snapshotId, long position, int maxBytes)
            implements RaftMessage {

        public FetchSnapshotRequest {
            Objects.requireNonNull(snapshotId, "snapshotId");
        }
    }

    /**
     * One chunk of a snapshot: {@code bytes} of the content starting at {@code position}, with the content's
     * total {@code size} and {@code crc32c}, which the follower checks once it holds every byte. Echoes the
     * request's {@code snapshotId} and {@code position}, so a late or repeated chunk is recognised and dropped.
     * On an error {@code bytes} is empty and {@code size}/{@code crc32c} are 0.
     */
    record FetchSnapshotResponse(
            int source,
            int destination,
            int epoch,
            FetchError error,
            int leaderId,
            OffsetAndEpoch snapshotId,
            long size,
            int crc32c,
            long position,
            byte[] bytes)
            implements RaftMessage {

        public FetchSnapshotResponse {
            Objects.requireNonNull(snapshotId, "snapshotId");
            bytes = bytes.clone();
        }

        @Override
        public byte[] bytes() {
            return bytes.clone();
        }

        /** Length of {@link #bytes()} without copying. */
        public int length() {
            return bytes.length;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof FetchSnapshotResponse other
                    && source == other.source
                    && destination == other.destination
                    && epoch == other.epoch
                    && error == other.error
                    && leaderId == other.leaderId
                    && snapshotId.equals(other.snapshotId)
                    && size == other.size
                    && crc32c == other.crc32c
                    && position == other.position
                    && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return Objects.hash(
                    source,
                    destination,
                    epoch,
                    error,
                    leaderId,
                    snapshotId,
                    size,
                    crc32c,
                    position,
                    Arrays.hashCode(bytes));
        }

        @Override
        public String toString() {
            return "FetchSnapshotResponse[" + source + "->" + destination + " epoch=" + epoch + " " + error
                    + " leader=" + leaderId + " snapshot=" + snapshotId + " size=" + size + " position=" + position
                    + " bytes=" + bytes.length + "]";
        }
    }

    /** Why a fetch or a snapshot fetch returned no data. New values go at the end: the wire sends the ordinal. */
    enum FetchError {
        NONE,
        /** The fetcher's epoch is older than the responder's; {@code leaderId}/{@code epoch} tell it the news. */
        FENCED_EPOCH,
        /** The responder is not the leader; {@code leaderId} is the leader it knows, or -1. */
        NOT_LEADER,
        /** The leader no longer holds the snapshot asked for (it took a newer one); fetch again to learn it. */
        SNAPSHOT_NOT_FOUND,
        /** The position asked for is outside the snapshot's content. */
        POSITION_OUT_OF_RANGE
    }
}
