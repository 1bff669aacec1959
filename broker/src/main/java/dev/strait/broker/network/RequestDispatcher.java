package dev.strait.broker.network;

/**
 * Executes one request on a handler thread. Must eventually call exactly one of
 * {@link NetworkRequest#respond}, {@link NetworkRequest#noResponse} or {@link NetworkRequest#closeConnection},
 * from any thread (immediately, or later for delayed operations); until then the connection stays muted.
 */
@FunctionalInterface
public interface RequestDispatcher {

    void dispatch(NetworkRequest request);
}
