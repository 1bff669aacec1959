/**
 * The status page's neighbours: {@link dev.strait.lag.peer.PeerWatch} reads the canary's and the mirror's
 * Prometheus endpoints once a cycle, on the monitor's loop thread and with a bounded timeout, and publishes what it
 * saw as an immutable {@link dev.strait.lag.peer.PeerState} (the canary's state and latency over the last hour, the
 * mirror's group offset sync), or when each became unreachable. {@link dev.strait.lag.peer.PromText} reads the text
 * format. Imports only the JDK; the monitor and {@code lag.http} import it.
 */
package dev.strait.lag.peer;
