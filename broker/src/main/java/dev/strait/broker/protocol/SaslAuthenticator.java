package dev.strait.broker.protocol;

import dev.strait.broker.network.NetworkRequest;
import java.nio.ByteBuffer;
import java.util.Objects;
import javax.security.sasl.SaslException;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SASL exchange of a connection to a SASL listener, before any other request, as Kafka's broker runs it:
 * <ol>
 *   <li>ApiVersions (optional) and SaslHandshake naming a mechanism; one not enabled gets
 *       UNSUPPORTED_SASL_MECHANISM with the enabled ones, and the connection closes;</li>
 *   <li>after SaslHandshake v1, SaslAuthenticate requests carry the mechanism's tokens (what kafka-clients and
 *       librdkafka send); after v0, the tokens come as bare size-prefixed frames without a request header (the
 *       pre-KIP-152 framing), answered the same way;</li>
 *   <li>once the SASL server completes, the connection's principal is {@code User:<authorization id>} and every API
 *       is served (under the authorizer).</li>
 * </ol>
 * Wrong credentials get SASL_AUTHENTICATION_FAILED with Kafka's message, then the connection closes (with v0
 * framing it just closes). Any other request before authentication closes the connection (during the exchange:
 * after an ILLEGAL_SASL_STATE answer). Sessions do not expire: {@code sessionLifetimeMs} is 0, so clients never
 * re-authenticate ({@code connections.max.reauth.ms} is not supported), and SaslHandshake or SaslAuthenticate on an
 * authenticated connection gets ILLEGAL_SASL_STATE.
 */
final class SaslAuthenticator {

    private static final Logger LOGGER = LoggerFactory.getLogger(SaslAuthenticator.class);

    /** One connection's authentication state; the network layer keeps it as the connection's attachment. */
    static final class Session {
        enum State {
            HANDSHAKE,
            AUTHENTICATE,
            AUTHENTICATE_BARE_TOKENS,
            COMPLETE
        }

        // Written and read by whichever handler thread has the connection's one request in flight; the network
        // layer's queues order those accesses.
        private State state;
        /** The SASL exchange in progress: set by the handshake, cleared once it completed. */
        private @Nullable SaslServer server;

        private @Nullable String mechanism;
        private KafkaPrincipal principal;

        /** The SASL server of an exchange the handshake started (SaslAuthenticate comes only after one). */
        private SaslServer saslServer() {
            return Objects.requireNonNull(server, "SaslAuthenticate before SaslHandshake");
        }

        private Session(State state, KafkaPrincipal principal) {
            this.state = state;
            this.principal = principal;
        }

        static Session authenticated(KafkaPrincipal principal) {
            return new Session(State.COMPLETE, principal);
        }

        static Session beforeSasl() {
            return new Session(State.HANDSHAKE, KafkaPrincipal.ANONYMOUS);
        }

        boolean complete() {
            return state == State.COMPLETE;
        }

        boolean expectsBareToken() {
            return state == State.AUTHENTICATE_BARE_TOKENS;
        }

        KafkaPrincipal principal() {
            return principal;
        }
    }

    private SaslAuthenticator() {}

    /**
     * Handles a request on a connection that is not authenticated yet.
     *
     * @param apiVersions answers ApiVersions as on any connection
     */
    static void handle(
            NetworkRequest request,
            RequestContext context,
            AbstractRequest body,
            Session session,
            ListenerSecurity security,
            java.util.function.Function<AbstractRequest, AbstractResponse> apiVersions) {
        ApiKeys key = context.header.apiKey();
        if (key == ApiKeys.API_VERSIONS && session.state == Session.State.HANDSHAKE) {
            KafkaApis.sendResponse(request, context, apiVersions.apply(body));
            return;
        }
        if (key == ApiKeys.SASL_HANDSHAKE && session.state == Session.State.HANDSHAKE) {
            handshake(request, context, (SaslHandshakeRequest) body, session, security);
            return;
        }
        if (key == ApiKeys.SASL_AUTHENTICATE && session.state == Session.State.AUTHENTICATE) {
            authenticate(request, context, (SaslAuthenticateRequest) body, session);
            return;
        }
        if (session.state == Session.State.AUTHENTICATE) {
            LOGGER.info("closing connection {}: {} during SASL authentication", request.connectionId(), key);
            respondAndClose(
                    request,
                    context,
                    body.getErrorResponse(
                            0,
                            Errors.ILLEGAL_SASL_STATE.exception(
                                    "Unexpected Kafka request of type " + key + " during SASL authentication.")));
            return;
        }
        LOGGER.info(
                "closing connection {}: {} before SASL authentication on listener {} ({})",
                request.connectionId(),
                key,
                security.listenerName(),
                security.protocol());
        request.closeConnection();
    }

    private static void handshake(
            NetworkRequest request,
            RequestContext context,
            SaslHandshakeRequest body,
            Session session,
            ListenerSecurity security) {
        String mechanism = body.data().mechanism();
        SaslHandshakeResponseData data = new SaslHandshakeResponseData().setMechanisms(security.mechanisms());
        if (!security.mechanisms().contains(mechanism)) {
            LOGGER.info(
                    "closing connection {}: client asked for SASL mechanism {}, listener {} enables {}",
                    request.connectionId(),
                    mechanism,
                    security.listenerName(),
                    security.mechanisms());
            respondAndClose(
                    request,
                    context,
                    new SaslHandshakeResponse(data.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code())));
            return;
        }
        session.server = security.newSaslServer(mechanism);
        session.mechanism = mechanism;
        session.state = context.apiVersion() == 0 ? Session.State.AUTHENTICATE_BARE_TOKENS : Session.State.AUTHENTICATE;
        KafkaApis.sendResponse(request, context, new SaslHandshakeResponse(data.setErrorCode(Errors.NONE.code())));
    }

    private static void authenticate(
            NetworkRequest request, RequestContext context, SaslAuthenticateRequest body, Session session) {
        SaslAuthenticateResponseData data = new SaslAuthenticateResponseData();
        try {
            byte[] token = session.saslServer().evaluateResponse(body.data().authBytes());
            data.setErrorCode(Errors.NONE.code())
                    .setAuthBytes(token == null ? new byte[0] : token)
                    .setSessionLifetimeMs(0);
            completeIfDone(request, session);
            KafkaApis.sendResponse(request, context, new SaslAuthenticateResponse(data));
        } catch (SaslAuthenticationException e) {
            failed(request, session, e.getMessage());
            respondAndClose(
                    request,
                    context,
                    new SaslAuthenticateResponse(data.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                            .setErrorMessage(e.getMessage())));
        } catch (SaslException | RuntimeException e) {
            // Kafka's wording; the SaslException's own text may tell whether the user exists, so it stays here.
            String message = "Authentication failed during authentication due to invalid credentials with SASL "
                    + "mechanism " + session.mechanism;
            failed(request, session, message + " (" + e.getMessage() + ")");
            respondAndClose(
                    request,
                    context,
                    new SaslAuthenticateResponse(data.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                            .setErrorMessage(message)));
        }
    }

    /** A token after SaslHandshake v0: the whole frame is the token, the answer a bare size-prefixed token. */
    static void handleBareToken(NetworkRequest request, Session session) {
        ByteBuffer payload = request.payload();
        byte[] token = new byte[payload.remaining()];
        payload.get(token);
        byte[] answer;
        try {
            answer = session.saslServer().evaluateResponse(token);
        } catch (SaslException | RuntimeException e) {
            failed(request, session, e.getMessage());
            request.closeConnection();
            return;
        }
        completeIfDone(request, session);
        byte[] frame = answer == null ? new byte[0] : answer;
        ByteBuffer out = ByteBuffer.allocate(4 + frame.length)
                .putInt(frame.length)
                .put(frame)
                .flip();
        request.respond(channel -> {
            channel.write(out);
            return !out.hasRemaining();
        });
    }

    private static void completeIfDone(NetworkRequest request, Session session) {
        SaslServer server = session.saslServer();
        if (!server.isComplete()) {
            return;
        }
        session.principal = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, server.getAuthorizationID());
        session.state = Session.State.COMPLETE;
        try {
            server.dispose();
        } catch (SaslException e) {
            LOGGER.debug("disposing the SASL server: {}", e.toString());
        }
        session.server = null;
        LOGGER.debug(
                "connection {} authenticated as {} with {}",
                request.connectionId(),
                session.principal,
                session.mechanism);
    }

    private static void failed(NetworkRequest request, Session session, @Nullable String message) {
        LOGGER.info(
                "failed authentication with {} on connection {} ({}: {})",
                request.clientAddress().getAddress().getHostAddress(),
                request.connectionId(),
                session.mechanism,
                message);
    }

    /** SaslHandshake or SaslAuthenticate on an authenticated (or non-SASL) connection. */
    static AbstractResponse afterAuthentication(ApiKeys key) {
        if (key == ApiKeys.SASL_HANDSHAKE) {
            return new SaslHandshakeResponse(
                    new SaslHandshakeResponseData().setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
        }
        return new SaslAuthenticateResponse(new SaslAuthenticateResponseData()
                .setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                .setErrorMessage("SaslAuthenticate request received after successful authentication"));
    }

    private static void respondAndClose(NetworkRequest request, RequestContext context, AbstractResponse response) {
        try {
            request.respondAndClose(new SendWriter(context.buildResponseSend(response)));
        } catch (RuntimeException e) {
            request.closeConnection();
        }
    }
}
