package dev.strait.bench;

import java.nio.charset.StandardCharsets;
import java.util.Random;

/**
 * Record values that look like what mirrors carry: JSON events of a fixed size with varying ids, amounts
 * and text, so compression has realistic work to do (neither random bytes nor a repeated constant).
 */
final class Payloads {
    private static final String[] WORDS = {
        "order",
        "payment",
        "refund",
        "customer",
        "warehouse",
        "shipment",
        "invoice",
        "eu-west",
        "us-east",
        "priority",
        "standard",
        "express",
        "pending",
        "settled",
        "failed",
        "retry"
    };

    private final Random random;
    private final int size;

    Payloads(long seed, int size) {
        this.random = new Random(seed);
        this.size = size;
    }

    byte[] key(long n) {
        return ("customer-" + (n % 100_000)).getBytes(StandardCharsets.UTF_8);
    }

    byte[] value(long n) {
        StringBuilder b = new StringBuilder(size + 64);
        b.append("{\"id\":")
                .append(n)
                .append(",\"ts\":")
                .append(1_700_000_000_000L + n)
                .append(",\"amount\":")
                .append(random.nextInt(1_000_000) / 100.0)
                .append(",\"tags\":[");
        while (b.length() < size - 40) {
            b.append('"')
                    .append(WORDS[random.nextInt(WORDS.length)])
                    .append('-')
                    .append(Integer.toHexString(random.nextInt()))
                    .append("\",");
        }
        b.append("\"end\"],\"note\":\"");
        while (b.length() < size - 2) {
            b.append((char) ('a' + random.nextInt(26)));
        }
        b.append("\"}");
        byte[] out = b.toString().getBytes(StandardCharsets.UTF_8);
        return out.length == size ? out : java.util.Arrays.copyOf(out, size);
    }
}
