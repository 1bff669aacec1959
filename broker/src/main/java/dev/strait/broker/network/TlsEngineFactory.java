package dev.strait.broker.network;

import javax.net.ssl.SSLEngine;

/**
 * Makes the server-side {@link SSLEngine} of one accepted connection of a TLS listener, configured with the
 * listener's key store, trust store, protocols, cipher suites and client-authentication mode ({@code ssl.*}).
 */
@FunctionalInterface
public interface TlsEngineFactory {

    SSLEngine createServerEngine(String peerHost, int peerPort);
}
