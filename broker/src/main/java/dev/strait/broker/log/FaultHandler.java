package dev.strait.broker.log;

/**
 * What a background loop of the broker (the metadata quorum loop, replica reconciliation, replica fetchers, the
 * group coordinator's shard loops) calls when it meets an error it cannot recover from: a node that keeps serving after
 * such an error acts on state that no longer moves (frozen metadata, replicas no longer in line with it), which is
 * worse than a node that stops. The broker binds one handler for all its loops; {@code BrokerMain}'s logs why and
 * ends the process with a non-zero exit code, an embedded broker halts itself.
 *
 * <p>Implementations must be thread-safe, must return promptly (the caller may be the failing loop itself, which
 * a handler must not wait for), and must tolerate being called more than once.
 */
@FunctionalInterface
public interface FaultHandler {

    /**
     * @param what  which loop failed and what it was doing, for the log line
     * @param cause the error
     */
    void handleFault(String what, Throwable cause);
}
