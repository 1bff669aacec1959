package dev.strait.mirror.http;

/** JSON text helpers for the hand-written status documents. Stateless. */
public final class Json {
    private Json() {}

    /** {@code s} as a JSON string literal, quotes included. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    /** A Prometheus label value: backslash and double quote escaped. */
    public static String label(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n");
    }
}
