package dev.strait.broker.controller;

import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import org.jspecify.annotations.Nullable;

/**
 * TLS of the controller wire, built by the server package from the controller listener's {@code ssl.*} settings:
 * the listener's server side ({@code serverParameters} carry {@code ssl.client.auth}: required makes the wire
 * mutually authenticated), the side this node dials the voters with (its key store is presented to them, its
 * trust store checks them, {@code ssl.endpoint.identification.algorithm} applies), and who may connect.
 */
public record ControllerTls(
        SSLContext serverContext,
        SSLParameters serverParameters,
        SSLContext clientContext,
        SSLParameters clientParameters,
        PeerCheck peerCheck) {

    /** Decides, after the handshake, whether an inbound peer may speak. */
    @FunctionalInterface
    public interface PeerCheck {
        /** Null if the peer may speak; otherwise why not, for the log. */
        @Nullable
        String refusal(SSLSession session, String host);
    }

    public ControllerTls {
        Objects.requireNonNull(serverContext, "serverContext");
        Objects.requireNonNull(serverParameters, "serverParameters");
        Objects.requireNonNull(clientContext, "clientContext");
        Objects.requireNonNull(clientParameters, "clientParameters");
        Objects.requireNonNull(peerCheck, "peerCheck");
    }
}
