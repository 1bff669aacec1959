package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.PartitionLogCompactionTest.KeyedRec;
import dev.strait.time.ManualTime;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random keyed appends (tombstones and keyless records included), compaction passes with small key-map budgets,
 * crash reopens and clean reopens, checked after every pass against the list of everything appended:
 * <ul>
 *   <li>every record read is the one appended at that offset, offsets strictly increase, the LEO never moves;</li>
 *   <li>the last record of every key is still there (tombstones too: delete.retention.ms is long here);</li>
 *   <li>keyless records are never removed;</li>
 *   <li>below the cleaner checkpoint, no record survives that a later record of its key below it superseded.</li>
 * </ul>
 * Replay a failure with its seed.
 */
class CompactionRandomizedTest {

    private static final int STEPS = 120;

    @TempDir
    Path root;

    @ParameterizedTest
    @ValueSource(longs = {1L, 7L, 42L, 20_261_129L})
    void randomAppendsAndPassesKeepTheCompactionInvariants(long seed) throws Exception {
        Random random = new Random(seed);
        ManualTime time = new ManualTime(1_700_000_000_000L);
        LogConfig config = LogConfig.defaults()
                .withSegmentBytes(64 + random.nextInt(400))
                .withIndexIntervalBytes(32)
                .withCleanupPolicy(LogConfig.CleanupPolicy.COMPACT)
                .withDeleteRetentionMs(Long.MAX_VALUE / 4);
        Path dir = root.resolve("random-" + seed);
        PartitionLog log = PartitionLog.open(dir, config, time);
        Map<Long, KeyedRec> appended = new HashMap<>();
        int keys = 2 + random.nextInt(12);
        try {
            for (int step = 0; step < STEPS; step++) {
                String context = "seed=" + seed + " step=" + step + " " + log;
                int action = random.nextInt(10);
                if (action < 6) {
                    appendRandomBatch(log, random, keys, step, appended);
                } else if (action < 9) {
                    long mapBytes = random.nextBoolean() ? 1 : 1 << 20;
                    compact(log, mapBytes);
                    check(log, appended, context);
                } else {
                    if (random.nextBoolean()) {
                        log.close();
                    } else {
                        log.closeQuietly();
                    }
                    log = PartitionLog.open(dir, config, time);
                    log.updateHighWatermark(log.logEndOffset());
                    check(log, appended, context + " after reopen");
                }
            }
            for (int pass = 0; pass < 10; pass++) {
                compact(log, 1 << 20);
            }
            check(log, appended, "seed=" + seed + " final");
            assertThat(readAll(log))
                    .as("seed=%d: compaction removed something", seed)
                    .hasSizeLessThan(appended.size());
        } finally {
            log.close();
        }
    }

    @Test
    void aKeyMapBudgetOfOneByteStillMakesProgressSegmentBySegment() throws Exception {
        // Given
        ManualTime time = new ManualTime(1_700_000_000_000L);
        LogConfig config =
                LogConfig.defaults().withSegmentBytes(100).withCleanupPolicy(LogConfig.CleanupPolicy.COMPACT);
        PartitionLog log = PartitionLog.open(root.resolve("tiny-map"), config, time);
        Map<Long, KeyedRec> appended = new HashMap<>();
        Random random = new Random(3);
        for (int i = 0; i < 30; i++) {
            appendRandomBatch(log, random, 3, i, appended);
        }

        // When: each pass maps one dirty segment only
        int passes = 0;
        while (passes < 100 && compact(log, 1)) {
            passes++;
        }

        // Then
        assertThat(passes).isGreaterThan(1);
        check(log, appended, "tiny map");
        log.close();
    }

    private static boolean compact(PartitionLog log, long mapBytes) throws IOException, InterruptedException {
        CompactionTask task = log.beginCompaction(mapBytes).orElse(null);
        if (task == null) {
            return false;
        }
        task.prepare(CompactionTask.IoThrottle.NONE);
        return log.completeCompaction(task);
    }

    private static void appendRandomBatch(
            PartitionLog log, Random random, int keys, int step, Map<Long, KeyedRec> appended) {
        int count = 1 + random.nextInt(3);
        String[] keysAndValues = new String[count * 2];
        for (int i = 0; i < count; i++) {
            int kind = random.nextInt(10);
            keysAndValues[2 * i] = kind == 0 ? null : "key-" + random.nextInt(keys);
            keysAndValues[2 * i + 1] = kind == 1 ? null : "value-" + step + "-" + i;
        }
        long base = log.logEndOffset();
        log.append(PartitionLogCompactionTest.keyedBatch(1_700_000_000_000L + step, keysAndValues), 0);
        log.updateHighWatermark(log.logEndOffset());
        for (int i = 0; i < count; i++) {
            appended.put(base + i, new KeyedRec(base + i, keysAndValues[2 * i], keysAndValues[2 * i + 1]));
        }
    }

    private static void check(PartitionLog log, Map<Long, KeyedRec> appended, String context) {
        assertThat(log.logEndOffset()).as(context).isEqualTo(appended.size());
        List<KeyedRec> read = readAll(log);
        Set<Long> present = new HashSet<>();
        long previous = -1;
        for (KeyedRec rec : read) {
            assertThat(rec.offset()).as(context).isGreaterThan(previous);
            assertThat(rec).as(context).isEqualTo(appended.get(rec.offset()));
            present.add(rec.offset());
            previous = rec.offset();
        }
        Map<String, Long> lastOffsetOfKey = new HashMap<>();
        Map<String, Long> lastBelowCheckpoint = new HashMap<>();
        for (long offset = 0; offset < appended.size(); offset++) {
            KeyedRec rec = appended.get(offset);
            if (rec.key() == null) {
                assertThat(present).as(context + " keyless record at " + offset).contains(offset);
                continue;
            }
            lastOffsetOfKey.put(rec.key(), offset);
            if (offset < log.cleanerCheckpoint()) {
                lastBelowCheckpoint.put(rec.key(), offset);
            }
        }
        for (Map.Entry<String, Long> last : lastOffsetOfKey.entrySet()) {
            assertThat(present).as(context + " last record of " + last.getKey()).contains(last.getValue());
        }
        for (KeyedRec rec : read) {
            if (rec.key() != null && rec.offset() < log.cleanerCheckpoint()) {
                assertThat(rec.offset())
                        .as(context + " superseded record below the cleaner checkpoint")
                        .isEqualTo(lastBelowCheckpoint.get(rec.key()));
            }
        }
    }

    private static List<KeyedRec> readAll(PartitionLog log) {
        List<KeyedRec> result = new ArrayList<>();
        long next = log.logStartOffset();
        for (int guard = 0; guard < 100_000 && next < log.logEndOffset(); guard++) {
            ByteBuffer slice =
                    log.read(next, 1 << 16, log.logEndOffset(), true).records().readAll();
            if (!slice.hasRemaining()) {
                break;
            }
            for (RecordBatchHeader header : RecordBatches.split(slice)) {
                header.validate();
                ByteBuffer batch = slice.duplicate()
                        .position(header.indexInBuffer())
                        .limit(header.indexInBuffer() + header.sizeInBytes())
                        .slice();
                for (CompactionTask.KeyedRecord record :
                        CompactionTask.records(batch, new RecordBatchHeader(batch, 0))) {
                    if (record.offset() >= next) {
                        result.add(decode(batch, record));
                    }
                }
                next = Math.max(next, header.nextOffset());
            }
        }
        return result;
    }

    private static KeyedRec decode(ByteBuffer batch, CompactionTask.KeyedRecord record) {
        ByteBuffer in = batch.duplicate().position(record.position());
        Varints.readVarint(in);
        in.get();
        Varints.readVarlong(in);
        Varints.readVarint(in);
        String key = readString(in);
        return new KeyedRec(record.offset(), key, readString(in));
    }

    private static String readString(ByteBuffer in) {
        int length = Varints.readVarint(in);
        if (length < 0) {
            return null;
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
