package dev.strait.mirror.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;

/**
 * The JSON documents Strait writes (status pages, webhooks, {@code --json} output), all through Jackson's
 * streaming generator: one library escapes every name, so a group, topic or canary id holding quotes or control
 * characters cannot break a document. Streaming rather than data binding keeps each field where users' scripts
 * expect it. Stateless; safe from any thread.
 */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}

    /** Writes one document's fields and values; the generator is closed after it. */
    @FunctionalInterface
    public interface Document {
        void write(JsonGenerator g) throws IOException;
    }

    /** The document {@code d} writes, as text. */
    public static String write(Document d) {
        StringWriter out = new StringWriter();
        try (JsonGenerator g = MAPPER.createGenerator(out)) {
            d.write(g);
        } catch (IOException e) {
            // A StringWriter does not fail; this is a document written wrongly (e.g. a value without its name).
            throw new UncheckedIOException("Could not write a JSON document: " + e.getMessage(), e);
        }
        return out.toString();
    }

    /** {@code value} as a JSON string, or {@code null} when it is null. */
    public static void string(JsonGenerator g, String name, @Nullable String value) throws IOException {
        g.writeFieldName(name);
        if (value == null) {
            g.writeNull();
        } else {
            g.writeString(value);
        }
    }

    /** An array of strings under {@code name}. */
    public static void strings(JsonGenerator g, String name, Iterable<String> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }
}
