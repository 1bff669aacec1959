package dev.strait.broker.controller;

import dev.strait.broker.raft.QuorumDescription;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The controller's answer to one {@link ControllerRequest}.
 *
 * @param error   outcome; anything but {@link Error#NONE} comes with a one-line {@code message}
 * @param message why it failed, empty on success
 * @param offset  the metadata log offset the caller must have applied to see the result, -1 if none
 * @param value   request specific: the node epoch for a registration, the first producer id of a block, the
 *                known controller for {@link Error#NOT_CONTROLLER} (-1 if unknown); for a heartbeat, 1 if the
 *                controller's leadership was confirmed when it arrived (it renews the node's {@link ReadLease})
 * @param flag    request specific: for a heartbeat, "fenced" (or "shutdown done" when shutdown was asked)
 * @param quorum  the answer to {@link ControllerRequest.DescribeQuorum}, with times in wall-clock milliseconds of
 *                the leader; null for every other request
 */
public record ControllerResponse(
        Error error,
        String message,
        long offset,
        long value,
        boolean flag,
        @Nullable QuorumDescription quorum) {

    /** Outcomes, each mapped to one of the metadata contract's exception types by the caller. */
    public enum Error {
        NONE,
        NOT_CONTROLLER,
        TOPIC_EXISTS,
        UNKNOWN_TOPIC,
        INVALID_REPLICATION_FACTOR,
        STALE_EPOCH,
        INVALID_REQUEST,
        STALE_BROKER_EPOCH,
        INVALID_REPLICA_ASSIGNMENT,
        /** A cancel of a partition that is not being reassigned (KIP-455). */
        NO_REASSIGNMENT_IN_PROGRESS;

        static Error forCode(int code) {
            if (code < 0 || code >= values().length) {
                throw new IllegalArgumentException("unknown controller error code " + code);
            }
            return values()[code];
        }
    }

    public ControllerResponse {
        Objects.requireNonNull(error, "error");
        Objects.requireNonNull(message, "message");
    }

    public ControllerResponse(Error error, String message, long offset, long value, boolean flag) {
        this(error, message, offset, value, flag, null);
    }

    static ControllerResponse quorum(QuorumDescription description) {
        return new ControllerResponse(Error.NONE, "", -1, 0, false, Objects.requireNonNull(description));
    }

    static ControllerResponse ok(long offset) {
        return new ControllerResponse(Error.NONE, "", offset, 0, false);
    }

    static ControllerResponse ok(long offset, long value, boolean flag) {
        return new ControllerResponse(Error.NONE, "", offset, value, flag);
    }

    static ControllerResponse error(Error error, String message) {
        return new ControllerResponse(error, message, -1, -1, false);
    }

    static ControllerResponse notController(int knownLeader) {
        return new ControllerResponse(Error.NOT_CONTROLLER, "not the active controller", -1, knownLeader, false);
    }

    boolean isOk() {
        return error == Error.NONE;
    }
}
