package dev.strait.lag.http;

import dev.strait.lag.peer.PeerState;
import dev.strait.lag.sample.LagHistory;
import dev.strait.mirror.http.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The status page: one HTML document with its style and script inline (no asset from anywhere else; its
 * Content-Security-Policy forbids loading any, and allows only the page's own style and script, by their SHA-256, so
 * that markup smuggled into the page could neither run a handler nor load anything), which reads {@code /status}, {@code /history} and {@code /peers}
 * every {@code refreshMs} and builds its DOM from them with text nodes only, never markup: topic and group names are
 * untrusted. This class serves the document and writes the two JSON documents only the page reads.
 */
public final class StatusPage {
    private static final String TEMPLATE = withHashes(load());

    private StatusPage() {}

    private static String load() {
        try (InputStream in = StatusPage.class.getResourceAsStream("status-page.html")) {
            if (in == null) {
                throw new IllegalStateException("status-page.html is missing from the lag monitor's jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Puts the hashes of the inline style and script into the policy: those two may run, nothing else. */
    private static String withHashes(String page) {
        return page.replace("__SCRIPT_HASH__", hash(page, "<script>", "</script>"))
                .replace("__STYLE_HASH__", hash(page, "<style>", "</style>"));
    }

    private static String hash(String page, String open, String close) {
        int from = page.indexOf(open) + open.length();
        int to = page.indexOf(close, from);
        if (from < open.length() || to < 0) {
            throw new IllegalStateException("status-page.html has no " + open + " element");
        }
        try {
            byte[] sha = MessageDigest.getInstance("SHA-256")
                    .digest(page.substring(from, to).getBytes(StandardCharsets.UTF_8));
            return "'sha256-" + Base64.getEncoder().encodeToString(sha) + "'";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /** The page, refreshing itself every {@code refreshMs} (at least one second). */
    public static String html(long refreshMs) {
        return TEMPLATE.replace("__REFRESH_MS__", Long.toString(Math.max(1_000, refreshMs)));
    }

    /** {@code /history}: per partition, {@code [timestampMs, lag, timeLagMs]} triples, oldest first. */
    public static String historyJson(String group, LagHistory.Snapshot h) {
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringField("group", group);
            g.writeNumberField("spanMs", h.spanMs());
            g.writeArrayFieldStart("series");
            for (LagHistory.Series s : h.series()) {
                g.writeStartObject();
                g.writeStringField("topic", s.topic());
                g.writeNumberField("partition", s.partition());
                g.writeArrayFieldStart("points");
                for (LagHistory.Point p : s.points()) {
                    g.writeStartArray();
                    g.writeNumber(p.timestampMs());
                    g.writeNumber(p.lag());
                    g.writeNumber(p.timeLagMs());
                    g.writeEndArray();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    /** {@code /peers}: the canary (state, latency now and its last hour) and the mirror's group offset sync. */
    public static String peersJson(PeerState peers) {
        return Json.write(g -> {
            PeerState.Canary c = peers.canary();
            g.writeStartObject();
            g.writeObjectFieldStart("canary");
            reach(g, c.reach());
            g.writeStringField("canaryId", c.canaryId());
            g.writeStringField("state", c.state());
            g.writeNumberField("p50Ms", c.p50Ms());
            g.writeNumberField("p99Ms", c.p99Ms());
            g.writeNumberField("lostTotal", c.lostTotal());
            g.writeArrayFieldStart("latency");
            for (PeerState.LatencyPoint p : c.latency()) {
                g.writeStartArray();
                g.writeNumber(p.timestampMs());
                g.writeNumber(p.p50Ms());
                g.writeNumber(p.p99Ms());
                g.writeEndArray();
            }
            g.writeEndArray();
            g.writeEndObject();
            PeerState.GroupSync s = peers.groupSync();
            g.writeObjectFieldStart("groupSync");
            reach(g, s.reach());
            g.writeBooleanField("present", s.present());
            g.writeBooleanField("failing", s.failing());
            g.writeNumberField("consecutiveFailures", s.consecutiveFailures());
            g.writeNumberField("lastSuccessMs", s.lastSuccessMs());
            g.writeNumberField("groups", s.groups());
            g.writeNumberField("partitions", s.partitions());
            g.writeNumberField("rounds", s.rounds());
            g.writeNumberField("failures", s.failures());
            g.writeEndObject();
            g.writeEndObject();
        });
    }

    private static void reach(com.fasterxml.jackson.core.JsonGenerator g, PeerState.Reach r) throws IOException {
        g.writeBooleanField("configured", r.configured());
        Json.string(g, "url", r.url());
        g.writeNumberField("lastReadMs", r.lastReadMs());
        g.writeNumberField("unreachableSinceMs", r.unreachableSinceMs());
        Json.string(g, "error", r.error());
    }
}
