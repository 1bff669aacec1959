package dev.strait.lag.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.lag.peer.PeerState;
import dev.strait.lag.sample.LagHistory;
import dev.strait.lag.status.Status;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The status page's server side: the document, its two JSON documents, and /status left as it was. */
class StatusPageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(StatusServer server, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static StatusServer server(String group, LagHistory.Snapshot history, PeerState peers) {
        return new StatusServer(
                "127.0.0.1",
                0,
                group,
                2_500,
                new StatusServer.Sources(
                        () -> StatusFormatJsonTest.status("t", Status.STALL),
                        () -> true,
                        () -> null,
                        () -> history,
                        () -> peers));
    }

    @Test
    void theRootServesOneSelfContainedDocumentThatRefreshesItself() throws Exception {
        try (StatusServer s = server("g", LagHistory.Snapshot.EMPTY, PeerState.NONE)) {
            HttpResponse<String> r = get(s, "/");

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
            String html = r.body();
            assertThat(html).startsWith("<!DOCTYPE html>").contains("data-refresh-ms=\"2500\"");
            assertThat(html)
                    .as("the browser may load nothing from elsewhere, and run only the page's own script and style")
                    .contains("content=\"default-src 'none'; script-src " + sha256(html, "<script>", "</script>")
                            + "; style-src " + sha256(html, "<style>", "</style>")
                            + "; connect-src 'self'; base-uri 'none'; form-action 'none'\"");
            assertThat(html).doesNotContain("unsafe-inline").doesNotContain("__");
            assertThat(html).doesNotContainPattern("(?i)<(script|link|img|iframe)[^>]*(src|href)=");
            assertThat(html).doesNotContainPattern("(?i)@import|url\\(");
            Matcher urls = Pattern.compile("https?://[^'\" ]+").matcher(html);
            while (urls.find()) {
                assertThat(urls.group())
                        .as("only the SVG namespace, never fetched")
                        .isEqualTo("http://www.w3.org/2000/svg");
            }
            assertThat(html)
                    .as("data becomes text nodes, never markup")
                    .doesNotContain("innerHTML")
                    .doesNotContain("outerHTML")
                    .doesNotContain("insertAdjacentHTML")
                    .doesNotContain("document.write");
            assertThat(get(s, "/status").body()).contains("\"status\":\"STALL\"");
            assertThat(get(s, "/favicon.ico").statusCode()).isEqualTo(404);
        }
    }

    private static String sha256(String html, String open, String close) throws Exception {
        String body = html.substring(html.indexOf(open) + open.length(), html.indexOf(close));
        return "'sha256-"
                + java.util.Base64.getEncoder()
                        .encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                                .digest(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                + "'";
    }

    @Test
    void theRefreshIsNeverFasterThanOneSecond() {
        assertThat(StatusPage.html(100)).contains("data-refresh-ms=\"1000\"");
    }

    @Test
    void historyIsEveryPartitionsPointsAndTheGroupEscaped() throws Exception {
        String hostile = StatusFormatJsonTest.hostile();
        LagHistory.Snapshot h = new LagHistory.Snapshot(
                3_600_000,
                List.of(new LagHistory.Series(
                        "t", 1, List.of(new LagHistory.Point(1_000, 5, 200), new LagHistory.Point(2_000, 0, 0)))));
        try (StatusServer s = server(hostile, h, PeerState.NONE)) {
            HttpResponse<String> r = get(s, "/history");

            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode doc = JSON.readTree(r.body());
            assertThat(doc.get("group").asText()).isEqualTo(hostile);
            assertThat(doc.get("spanMs").asLong()).isEqualTo(3_600_000);
            assertThat(doc.get("series").get(0).get("topic").asText()).isEqualTo("t");
            assertThat(doc.get("series").get(0).get("partition").asInt()).isEqualTo(1);
            assertThat(doc.get("series").get(0).get("points").toString()).isEqualTo("[[1000,5,200],[2000,0,0]]");
        }
    }

    @Test
    void peersSayNotConfiguredOrUnreachableSince() throws Exception {
        PeerState peers = new PeerState(
                new PeerState.Canary(
                        new PeerState.Reach("http://canary:9000/metrics", 1_000, 5_000, "ConnectException: refused"),
                        "c-1",
                        "OK",
                        120,
                        900,
                        0,
                        List.of(new PeerState.LatencyPoint(1_000, 120, 900))),
                PeerState.NONE.groupSync());
        try (StatusServer s = server("g", LagHistory.Snapshot.EMPTY, peers)) {
            JsonNode doc = JSON.readTree(get(s, "/peers").body());

            JsonNode canary = doc.get("canary");
            assertThat(canary.get("configured").asBoolean()).isTrue();
            assertThat(canary.get("unreachableSinceMs").asLong()).isEqualTo(5_000);
            assertThat(canary.get("error").asText()).isEqualTo("ConnectException: refused");
            assertThat(canary.get("state").asText()).isEqualTo("OK");
            assertThat(canary.get("latency").toString()).isEqualTo("[[1000,120.0,900.0]]");
            assertThat(doc.get("groupSync").get("configured").asBoolean()).isFalse();
        }
    }

    @Test
    void theOldConstructorStillServesThePageWithoutHistoryOrNeighbours() throws Exception {
        try (StatusServer s = new StatusServer(
                "127.0.0.1", 0, "g", () -> StatusFormatJsonTest.status("t", Status.OK), () -> true, () -> null)) {
            assertThat(get(s, "/").statusCode()).isEqualTo(200);
            assertThat(JSON.readTree(get(s, "/history").body()).get("series").size())
                    .isZero();
            assertThat(JSON.readTree(get(s, "/peers").body())
                            .get("canary")
                            .get("configured")
                            .asBoolean())
                    .isFalse();
        }
    }
}
