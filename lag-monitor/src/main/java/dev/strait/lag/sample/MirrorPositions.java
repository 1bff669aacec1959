package dev.strait.lag.sample;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads the mirror's read position per source partition from its Prometheus endpoint
 * ({@code strait_mirror_partition_position{topic="…",partition="…"} N}). Thread-safe.
 */
public final class MirrorPositions {
    private static final Pattern LINE = Pattern.compile(
            "^strait_mirror_partition_position\\{topic=\"((?:[^\"\\\\]|\\\\.)*)\",partition=\"(\\d+)\"} (\\d+)$");

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final URI url;

    public MirrorPositions(URI url) {
        this.url = url;
    }

    /** Positions by source partition; throws with a one-line reason when the endpoint cannot be read. */
    public Map<TopicPartition, Long> fetch() throws Exception {
        HttpResponse<String> response = http.send(
                HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("mirror metrics " + url + " answered HTTP " + response.statusCode());
        }
        return parse(response.body());
    }

    static Map<TopicPartition, Long> parse(String body) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (String line : body.split("\n")) {
            Matcher m = LINE.matcher(line.trim());
            if (m.matches()) {
                String topic = m.group(1).replace("\\\"", "\"").replace("\\\\", "\\");
                out.put(new TopicPartition(topic, Integer.parseInt(m.group(2))), Long.parseLong(m.group(3)));
            }
        }
        return out;
    }
}
