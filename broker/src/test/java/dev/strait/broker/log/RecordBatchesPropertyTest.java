package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Builders;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.ControlRecordType;
import org.apache.kafka.common.record.EndTransactionMarker;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MemoryRecordsBuilder;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.record.RecordBatch;

/**
 * Batch splitting and header parsing against kafka-clients (tests only: the log package itself must not import it):
 * any concatenation of batches kafka-clients writes (compressed or not, idempotent, transactional, control markers,
 * either timestamp type) splits into exactly those batches, each header field reading as kafka-clients' own {@link
 * RecordBatch} reports it; a buffer cut inside a batch is refused, one cut between batches splits into the batches
 * before the cut.
 */
class RecordBatchesPropertyTest {

    /** One record: key and value (null or text), headers. */
    record Rec(String key, String value, int headers) {}

    /** One batch as kafka-clients is asked to write it. */
    record Spec(
            long baseOffset,
            int leaderEpoch,
            long producerId,
            short producerEpoch,
            int baseSequence,
            boolean transactional,
            boolean logAppendTime,
            long timestamp,
            int compression,
            ControlRecordType marker,
            int coordinatorEpoch,
            List<Rec> records) {}

    private static final Compression[] COMPRESSIONS = {
        Compression.NONE,
        Compression.gzip().build(),
        Compression.lz4().build(),
        Compression.zstd().build()
    };

    @Property(tries = 300)
    void splitReturnsEveryBatchWithTheFieldsKafkaReads(
            @ForAll("batches") List<Spec> specs, @ForAll @IntRange(min = 0, max = 7) int junk) {
        // Given: the batches after some bytes that are not part of the buffer's remaining content
        ByteBuffer buffer = concatenate(specs, junk);
        List<MutableRecordBatch> expected = kafkaBatches(buffer);

        // When
        List<RecordBatchHeader> split = RecordBatches.split(buffer);

        // Then
        assertThat(buffer.position()).as("split leaves the position alone").isEqualTo(junk);
        assertThat(split).hasSize(specs.size());
        assertThat(expected).hasSize(specs.size());
        int index = junk;
        for (int i = 0; i < split.size(); i++) {
            RecordBatchHeader ours = split.get(i);
            assertThat(ours.indexInBuffer()).isEqualTo(index);
            sameAs(ours, expected.get(i), specs.get(i));
            index += ours.sizeInBytes();
        }
        assertThat(index).isEqualTo(buffer.limit());
    }

    @Property(tries = 300)
    void aBufferCutInsideABatchIsRefusedAndOneCutBetweenBatchesSplitsIntoThoseBefore(
            @ForAll("batches") List<Spec> specs, @ForAll @IntRange(min = 0, max = 100_000) int where) {
        // Given
        ByteBuffer whole = concatenate(specs, 0);
        List<Integer> boundaries = new ArrayList<>();
        int end = 0;
        boundaries.add(end);
        for (MutableRecordBatch b : kafkaBatches(whole)) {
            end += b.sizeInBytes();
            boundaries.add(end);
        }
        int cut = where % (whole.limit() + 1);
        ByteBuffer partial = whole.duplicate().limit(cut);

        // When / Then
        if (boundaries.contains(cut)) {
            List<RecordBatchHeader> split = RecordBatches.split(partial);
            assertThat(split).hasSize(boundaries.indexOf(cut));
            for (int i = 0; i < split.size(); i++) {
                assertThat(split.get(i).indexInBuffer()).isEqualTo(boundaries.get(i));
                assertThat(split.get(i).baseOffset()).isEqualTo(specs.get(i).baseOffset());
            }
        } else {
            assertThatThrownBy(() -> RecordBatches.split(partial))
                    .as("a buffer cut at byte %d of %d (batch ends %s)", cut, whole.limit(), boundaries)
                    .isInstanceOf(CorruptRecordException.class);
        }
    }

    private static void sameAs(RecordBatchHeader ours, RecordBatch kafka, Spec spec) {
        String at = "batch " + spec;
        assertThat(ours.baseOffset()).as(at).isEqualTo(kafka.baseOffset()).isEqualTo(spec.baseOffset());
        assertThat(ours.lastOffset()).as(at).isEqualTo(kafka.lastOffset());
        assertThat(ours.nextOffset()).as(at).isEqualTo(kafka.nextOffset());
        assertThat(ours.lastOffsetDelta()).as(at).isEqualTo((int) (kafka.lastOffset() - kafka.baseOffset()));
        assertThat(ours.recordsCount()).as(at).isEqualTo(kafka.countOrNull());
        assertThat(ours.sizeInBytes()).as(at).isEqualTo(kafka.sizeInBytes());
        assertThat(ours.magic()).as(at).isEqualTo(kafka.magic());
        assertThat(ours.crc()).as(at).isEqualTo(kafka.checksum());
        assertThat(ours.partitionLeaderEpoch()).as(at).isEqualTo(kafka.partitionLeaderEpoch());
        assertThat(ours.producerId()).as(at).isEqualTo(kafka.producerId());
        assertThat(ours.producerEpoch()).as(at).isEqualTo(kafka.producerEpoch());
        assertThat(ours.baseSequence()).as(at).isEqualTo(kafka.baseSequence());
        assertThat(ours.maxTimestampMs()).as(at).isEqualTo(kafka.maxTimestamp());
        assertThat(ours.isTransactional()).as(at).isEqualTo(kafka.isTransactional());
        assertThat(ours.isControl()).as(at).isEqualTo(kafka.isControlBatch());
        assertThat(ours.compressionCodec()).as(at).isEqualTo(kafka.compressionType().id);
        assertThat(ours.timestampType().name())
                .as(at)
                .isEqualTo(kafka.timestampType().name());
        assertThat(ours.controlType())
                .as(at)
                .isEqualTo(spec.marker() == null ? (short) -1 : spec.marker().type());
        assertThat(ours.computeCrc()).as(at).isEqualTo(ours.crc());
        ours.validate();
    }

    private static List<MutableRecordBatch> kafkaBatches(ByteBuffer buffer) {
        List<MutableRecordBatch> out = new ArrayList<>();
        MemoryRecords.readableRecords(buffer.slice()).batches().forEach(b -> {
            b.ensureValid();
            out.add(b);
        });
        return out;
    }

    private static ByteBuffer concatenate(List<Spec> specs, int junk) {
        List<ByteBuffer> parts = new ArrayList<>();
        int size = junk;
        for (Spec spec : specs) {
            ByteBuffer b = write(spec);
            parts.add(b);
            size += b.remaining();
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        for (int i = 0; i < junk; i++) {
            out.put((byte) 0x7f);
        }
        parts.forEach(out::put);
        out.flip();
        out.position(junk);
        return out;
    }

    private static ByteBuffer write(Spec spec) {
        if (spec.marker() != null) {
            return MemoryRecords.withEndTransactionMarker(
                            spec.baseOffset(),
                            spec.timestamp(),
                            spec.leaderEpoch(),
                            spec.producerId(),
                            spec.producerEpoch(),
                            new EndTransactionMarker(spec.marker(), spec.coordinatorEpoch()))
                    .buffer();
        }
        boolean idempotent = spec.producerId() >= 0;
        MemoryRecordsBuilder builder = MemoryRecords.builder(
                ByteBuffer.allocate(256),
                RecordBatch.MAGIC_VALUE_V2,
                COMPRESSIONS[spec.compression()],
                spec.logAppendTime()
                        ? org.apache.kafka.common.record.TimestampType.LOG_APPEND_TIME
                        : org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                spec.baseOffset(),
                spec.timestamp() + 1_000,
                idempotent ? spec.producerId() : RecordBatch.NO_PRODUCER_ID,
                idempotent ? spec.producerEpoch() : RecordBatch.NO_PRODUCER_EPOCH,
                idempotent ? spec.baseSequence() : RecordBatch.NO_SEQUENCE,
                idempotent && spec.transactional(),
                false,
                spec.leaderEpoch());
        long ts = spec.timestamp();
        for (Rec r : spec.records()) {
            Header[] headers = new Header[r.headers()];
            for (int h = 0; h < headers.length; h++) {
                headers[h] = new RecordHeader("h" + h, bytes(r.value()));
            }
            builder.append(ts, bytes(r.key()), bytes(r.value()), headers);
            ts = Math.max(0, ts + r.headers() * 7L - 3);
        }
        return builder.build().buffer();
    }

    private static byte[] bytes(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    @Provide
    Arbitrary<List<Spec>> batches() {
        Arbitrary<Rec> recs = Builders.withBuilder(() -> new Rec(null, null, 0))
                .use(Arbitraries.strings().alpha().ofMaxLength(12).injectNull(0.2))
                .in((r, k) -> new Rec(k, r.value(), r.headers()))
                .use(Arbitraries.strings().ofMaxLength(40).injectNull(0.1))
                .in((r, v) -> new Rec(r.key(), v, r.headers()))
                .use(Arbitraries.integers().between(0, 3))
                .in((r, h) -> new Rec(r.key(), r.value(), h))
                .build();
        Arbitrary<Spec> specs = Builders.withBuilder(
                        () -> new Spec(0, 0, -1, (short) -1, -1, false, false, 0, 0, null, 0, List.of()))
                .use(Arbitraries.longs().between(0, Long.MAX_VALUE / 2))
                .in((s, v) -> with(s, v, s.leaderEpoch(), s.producerId(), s.records()))
                .use(Arbitraries.integers().between(-1, Integer.MAX_VALUE))
                .in((s, v) -> with(s, s.baseOffset(), v, s.producerId(), s.records()))
                .use(Arbitraries.longs().between(-1, Long.MAX_VALUE))
                .in((s, v) -> with(s, s.baseOffset(), s.leaderEpoch(), v, s.records()))
                .use(Arbitraries.shorts().between((short) 0, Short.MAX_VALUE))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        v,
                        s.baseSequence(),
                        s.transactional(),
                        s.logAppendTime(),
                        s.timestamp(),
                        s.compression(),
                        s.marker(),
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.integers().between(0, Integer.MAX_VALUE - 100))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        s.producerEpoch(),
                        v,
                        s.transactional(),
                        s.logAppendTime(),
                        s.timestamp(),
                        s.compression(),
                        s.marker(),
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.of(true, false))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        s.producerEpoch(),
                        s.baseSequence(),
                        v,
                        s.logAppendTime(),
                        s.timestamp(),
                        s.compression(),
                        s.marker(),
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.of(true, false))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        s.producerEpoch(),
                        s.baseSequence(),
                        s.transactional(),
                        v,
                        s.timestamp(),
                        s.compression(),
                        s.marker(),
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.longs().between(0, 4_000_000_000_000L))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        s.producerEpoch(),
                        s.baseSequence(),
                        s.transactional(),
                        s.logAppendTime(),
                        v,
                        s.compression(),
                        s.marker(),
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.integers().between(0, COMPRESSIONS.length - 1))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        s.producerEpoch(),
                        s.baseSequence(),
                        s.transactional(),
                        s.logAppendTime(),
                        s.timestamp(),
                        v,
                        s.marker(),
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.of(ControlRecordType.ABORT, ControlRecordType.COMMIT)
                        .injectNull(0.8))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        v == null ? s.producerId() : Math.max(0, s.producerId()),
                        s.producerEpoch(),
                        s.baseSequence(),
                        s.transactional(),
                        s.logAppendTime(),
                        s.timestamp(),
                        s.compression(),
                        v,
                        s.coordinatorEpoch(),
                        s.records()))
                .use(Arbitraries.integers().between(0, 1000))
                .in((s, v) -> new Spec(
                        s.baseOffset(),
                        s.leaderEpoch(),
                        s.producerId(),
                        s.producerEpoch(),
                        s.baseSequence(),
                        s.transactional(),
                        s.logAppendTime(),
                        s.timestamp(),
                        s.compression(),
                        s.marker(),
                        v,
                        s.records()))
                .use(recs.list().ofMinSize(1).ofMaxSize(8))
                .in((s, v) -> with(s, s.baseOffset(), s.leaderEpoch(), s.producerId(), v))
                .build();
        return specs.list().ofMaxSize(6);
    }

    private static Spec with(Spec s, long baseOffset, int leaderEpoch, long producerId, List<Rec> records) {
        return new Spec(
                baseOffset,
                leaderEpoch,
                producerId,
                s.producerEpoch(),
                s.baseSequence(),
                s.transactional(),
                s.logAppendTime(),
                s.timestamp(),
                s.compression(),
                s.marker(),
                s.coordinatorEpoch(),
                records);
    }
}
