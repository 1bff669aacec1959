package dev.strait.mirror.testing;

import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TopicReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * The oracle of the mirror tests: reads a source topic and its mirror back in full and reports, with
 * the provenance header as the link, which source records are missing on the target, which arrived more
 * than once, which differ in a field, which are out of order, and whether each partition's ordered digest
 * (key, value, headers without provenance, timestamp) matches.
 */
public final class MirrorCheck {

    /** What a comparison found. Offsets in the samples are "partition@offset" of the source. */
    public record Report(
            long sourceRecords,
            long targetRecords,
            long lost,
            long duplicates,
            long mismatched,
            long unordered,
            long foreign,
            boolean digestsEqual,
            List<String> lostSamples,
            Map<Integer, List<Long>> duplicatedOffsets) {
        @Override
        public String toString() {
            return "source=" + sourceRecords + " target=" + targetRecords + " lost=" + lost + " duplicates="
                    + duplicates
                    + " mismatched=" + mismatched + " unordered=" + unordered + " foreign=" + foreign
                    + " digestsEqual=" + digestsEqual + (lostSamples.isEmpty() ? "" : " lostSamples=" + lostSamples);
        }
    }

    private MirrorCheck() {}

    public static Report compare(TestCluster source, String sourceTopic, TestCluster target, String targetTopic) {
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src =
                TopicReader.readAll(source.bootstrapServers(), sourceTopic);
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst =
                TopicReader.readAll(target.bootstrapServers(), targetTopic);
        return compare(src, sourceTopic, dst);
    }

    public static Report compare(
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src,
            String sourceTopic,
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst) {
        Map<Integer, Map<Long, ConsumerRecord<byte[], byte[]>>> byOffset = new HashMap<>();
        long sourceCount = 0;
        for (Map.Entry<Integer, List<ConsumerRecord<byte[], byte[]>>> e : src.entrySet()) {
            Map<Long, ConsumerRecord<byte[], byte[]>> m = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : e.getValue()) {
                m.put(r.offset(), r);
            }
            byOffset.put(e.getKey(), m);
            sourceCount += e.getValue().size();
        }
        Map<Integer, Set<Long>> seen = new HashMap<>();
        Map<Integer, List<Long>> duplicated = new TreeMap<>();
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> firstCopies = new TreeMap<>();
        long targetCount = 0;
        long duplicates = 0;
        long mismatched = 0;
        long unordered = 0;
        long foreign = 0;
        for (List<ConsumerRecord<byte[], byte[]>> partition : dst.values()) {
            Map<Integer, Long> lastBySourcePartition = new HashMap<>();
            for (ConsumerRecord<byte[], byte[]> r : partition) {
                targetCount++;
                Provenance p = Provenance.from(r.headers());
                if (p == null
                        || !p.topic().equals(sourceTopic)
                        || !byOffset.containsKey(p.partition())
                        || !byOffset.get(p.partition()).containsKey(p.offset())) {
                    foreign++;
                    continue;
                }
                if (!seen.computeIfAbsent(p.partition(), k -> new HashSet<>()).add(p.offset())) {
                    duplicates++;
                    duplicated
                            .computeIfAbsent(p.partition(), k -> new ArrayList<>())
                            .add(p.offset());
                    continue;
                }
                ConsumerRecord<byte[], byte[]> original =
                        byOffset.get(p.partition()).get(p.offset());
                if (!sameContent(original, r)) {
                    mismatched++;
                }
                Long last = lastBySourcePartition.put(p.partition(), p.offset());
                if (last != null && p.offset() < last) {
                    unordered++;
                }
                firstCopies
                        .computeIfAbsent(p.partition(), k -> new ArrayList<>())
                        .add(r);
            }
        }
        long lost = 0;
        List<String> lostSamples = new ArrayList<>();
        for (Map.Entry<Integer, Map<Long, ConsumerRecord<byte[], byte[]>>> e : byOffset.entrySet()) {
            Set<Long> s = seen.getOrDefault(e.getKey(), Set.of());
            for (Long offset : new TreeMap<>(e.getValue()).keySet()) {
                if (!s.contains(offset)) {
                    lost++;
                    if (lostSamples.size() < 10) {
                        lostSamples.add(e.getKey() + "@" + offset);
                    }
                }
            }
        }
        boolean digestsEqual = true;
        for (Map.Entry<Integer, List<ConsumerRecord<byte[], byte[]>>> e : src.entrySet()) {
            byte[] a = digest(e.getValue());
            byte[] b = digest(firstCopies.getOrDefault(e.getKey(), List.of()));
            digestsEqual &= Arrays.equals(a, b);
        }
        return new Report(
                sourceCount,
                targetCount,
                lost,
                duplicates,
                mismatched,
                unordered,
                foreign,
                digestsEqual,
                lostSamples,
                duplicated);
    }

    /** Same key, value, timestamp and headers other than provenance. */
    public static boolean sameContent(ConsumerRecord<byte[], byte[]> a, ConsumerRecord<byte[], byte[]> b) {
        return Arrays.equals(a.key(), b.key())
                && Arrays.equals(a.value(), b.value())
                && a.timestamp() == b.timestamp()
                && userHeaders(a).equals(userHeaders(b));
    }

    private static List<String> userHeaders(ConsumerRecord<byte[], byte[]> r) {
        List<String> out = new ArrayList<>();
        for (Header h : r.headers()) {
            if (!h.key().equals(Provenance.HEADER)) {
                out.add(h.key() + "=" + Arrays.toString(h.value()));
            }
        }
        return out;
    }

    /** An order-sensitive digest of a partition's records: key, value, user headers and timestamp. */
    public static byte[] digest(List<ConsumerRecord<byte[], byte[]>> records) {
        MessageDigest md;
        try {
            md = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        for (ConsumerRecord<byte[], byte[]> r : records) {
            field(md, r.key());
            field(md, r.value());
            for (Header h : r.headers()) {
                if (!h.key().equals(Provenance.HEADER)) {
                    field(md, h.key().getBytes(StandardCharsets.UTF_8));
                    field(md, h.value());
                }
            }
            md.update(ByteBuffer.allocate(8).putLong(r.timestamp()).array());
        }
        return md.digest();
    }

    private static void field(MessageDigest md, byte[] bytes) {
        md.update(
                ByteBuffer.allocate(4).putInt(bytes == null ? -1 : bytes.length).array());
        if (bytes != null) {
            md.update(bytes);
        }
    }
}
