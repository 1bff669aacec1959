package dev.strait.broker.controller;

import dev.strait.broker.raft.RaftMessage;
import java.util.Objects;

/** One frame on the controller listener. Immutable. */
sealed interface ControllerMessage {

    /** First frame on every connection: who opened it, so replies to a non-voter can use the same connection. */
    record Hello(int nodeId) implements ControllerMessage {}

    record Raft(RaftMessage message) implements ControllerMessage {
        public Raft {
            Objects.requireNonNull(message, "message");
        }
    }

    record Request(int source, long correlationId, ControllerRequest request) implements ControllerMessage {
        public Request {
            Objects.requireNonNull(request, "request");
        }
    }

    record Response(int destination, long correlationId, ControllerResponse response) implements ControllerMessage {
        public Response {
            Objects.requireNonNull(response, "response");
        }
    }
}
