package dev.strait.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.ManualTime;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random appends, high watermark moves, truncations, DeleteRecords, retention, flushes, clean reopens and crash
 * reopens against a simple in-memory model, with fixed seeds. After every step the log's offsets must match the
 * model; every few steps the whole readable log is read back and compared.
 */
class PartitionLogRandomizedTest {

    private static final int STEPS = 400;

    @TempDir
    Path root;

    /** One appended batch in the model. */
    private record ModelBatch(long baseOffset, List<String> values) {
        long nextOffset() {
            return baseOffset + values.size();
        }
    }

    @Test
    void seed1() throws IOException {
        run(1L);
    }

    @Test
    void seed20261129() throws IOException {
        run(20_261_129L);
    }

    private void run(long seed) throws IOException {
        Random random = new Random(seed);
        ManualTime time = new ManualTime(1_700_000_000_000L);
        LogConfig config = LogConfig.defaults()
                .withSegmentBytes(512)
                .withIndexIntervalBytes(48)
                .withRetentionBytes(4_096)
                .withRetentionMs(-1);
        Path dir = root.resolve("random-" + seed);
        PartitionLog log = PartitionLog.open(dir, config, time);
        List<ModelBatch> model = new ArrayList<>();
        long modelStart = 0;
        long modelEnd = 0;
        long modelHighWatermark = 0;
        int epoch = 0;
        int valueCounter = 0;
        try {
            for (int step = 0; step < STEPS; step++) {
                String context = "seed=" + seed + " step=" + step + " " + log;
                int op = random.nextInt(100);
                time.advance(random.nextInt(1_000));
                if (op < 55) {
                    int batchCount = 1 + random.nextInt(3);
                    List<ByteBuffer> batches = new ArrayList<>();
                    List<ModelBatch> added = new ArrayList<>();
                    long next = modelEnd;
                    for (int b = 0; b < batchCount; b++) {
                        String[] values = new String[1 + random.nextInt(4)];
                        for (int v = 0; v < values.length; v++) {
                            values[v] = "v" + valueCounter++;
                        }
                        batches.add(TestBatches.batch(time.milliseconds(), values));
                        added.add(new ModelBatch(next, List.of(values)));
                        next += values.length;
                    }
                    if (random.nextInt(10) == 0) {
                        epoch++;
                    }
                    AppendResult result = log.append(TestBatches.concat(batches.toArray(new ByteBuffer[0])), epoch);
                    assertThat(result.firstOffset()).as(context).isEqualTo(modelEnd);
                    assertThat(result.lastOffset()).as(context).isEqualTo(next - 1);
                    model.addAll(added);
                    modelEnd = next;
                } else if (op < 67) {
                    long hw = modelHighWatermark + (long) (random.nextDouble() * (modelEnd - modelHighWatermark + 1));
                    log.updateHighWatermark(Math.min(hw, modelEnd));
                    modelHighWatermark = Math.min(hw, modelEnd);
                } else if (op < 77) {
                    long offset = modelStart + (long) (random.nextDouble() * (modelEnd - modelStart + 1));
                    log.truncateTo(offset);
                    while (!model.isEmpty() && model.get(model.size() - 1).nextOffset() > offset) {
                        model.remove(model.size() - 1);
                    }
                    modelEnd = Math.min(
                            modelEnd,
                            model.isEmpty()
                                    ? modelStart
                                    : model.get(model.size() - 1).nextOffset());
                    if (modelEnd < modelStart) {
                        // the batch holding the log start offset went: the log restarts empty there
                        model.clear();
                        modelEnd = modelStart;
                    }
                    modelHighWatermark = Math.min(modelHighWatermark, modelEnd);
                } else if (op < 82) {
                    long offset = modelStart + (long) (random.nextDouble() * (modelHighWatermark - modelStart + 1));
                    offset = Math.min(offset, modelHighWatermark);
                    log.deleteRecordsBefore(offset);
                    modelStart = Math.max(modelStart, offset);
                } else if (op < 87) {
                    log.deleteSegmentsForRetention();
                    assertThat(log.logStartOffset()).as(context).isBetween(modelStart, modelHighWatermark);
                    modelStart = log.logStartOffset();
                } else if (op < 91) {
                    log.flush();
                } else if (op < 96) {
                    log.close();
                    log = PartitionLog.open(dir, config, time);
                } else {
                    // A process crash: written bytes survive in the page cache, nothing is flushed or marked.
                    // Half the time the last write is also torn (its final byte lost).
                    List<LogSegment> segments = log.segments();
                    LogSegment active = segments.get(segments.size() - 1);
                    boolean tear = random.nextBoolean() && !active.isEmpty();
                    Path activeFile = active.logFile();
                    log.closeQuietly();
                    if (tear) {
                        try (FileChannel channel = FileChannel.open(activeFile, StandardOpenOption.WRITE)) {
                            channel.truncate(channel.size() - 1);
                        }
                        modelEnd = model.remove(model.size() - 1).baseOffset();
                        if (modelEnd < modelStart) {
                            model.clear();
                            modelEnd = modelStart;
                        }
                    }
                    log = PartitionLog.open(dir, config, time);
                    // The high watermark is checkpointed on flush, close and offset changes only, so a crash may
                    // bring back an older (never a newer) value; the replication layer re-derives it.
                    assertThat(log.highWatermark())
                            .as(context)
                            .isBetween(modelStart, Math.min(modelHighWatermark, modelEnd));
                    modelHighWatermark = log.highWatermark();
                }
                checkInvariants(
                        log,
                        modelStart,
                        modelEnd,
                        modelHighWatermark,
                        epoch,
                        "seed=" + seed + " step=" + step + " op=" + op);
                if (step % 10 == 0 || op >= 91) {
                    checkContents(log, model, modelStart, "seed=" + seed + " step=" + step);
                }
            }
            checkContents(log, model, modelStart, "seed=" + seed + " end");
        } finally {
            log.close();
        }
    }

    private static void checkInvariants(
            PartitionLog log, long start, long end, long highWatermark, int epoch, String context) {
        assertThat(log.logStartOffset()).as(context).isEqualTo(start);
        assertThat(log.logEndOffset()).as(context).isEqualTo(end);
        assertThat(log.highWatermark()).as(context).isEqualTo(highWatermark);
        assertThat(log.recoveryPoint()).as(context).isLessThanOrEqualTo(end);
        long previousBase = -1;
        for (LogSegment segment : log.segments()) {
            assertThat(segment.baseOffset()).as(context).isGreaterThan(previousBase);
            previousBase = segment.baseOffset();
        }
        int previousEpoch = -1;
        for (EpochEntry entry : log.leaderEpochCache().entries()) {
            assertThat(entry.epoch()).as(context).isGreaterThan(previousEpoch).isLessThanOrEqualTo(epoch);
            // == end only when DeleteRecords removed everything: the latest epoch then starts at the empty end
            assertThat(entry.startOffset()).as(context).isLessThanOrEqualTo(end).isGreaterThanOrEqualTo(start);
            previousEpoch = entry.epoch();
        }
    }

    private static void checkContents(PartitionLog log, List<ModelBatch> model, long start, String context) {
        List<Long> expectedOffsets = new ArrayList<>();
        List<String> expectedValues = new ArrayList<>();
        for (ModelBatch batch : model) {
            for (int i = 0; i < batch.values().size(); i++) {
                if (batch.baseOffset() + i >= start) {
                    expectedOffsets.add(batch.baseOffset() + i);
                    expectedValues.add(batch.values().get(i));
                }
            }
        }
        List<TestBatches.Rec> actual = TestBatches.readAll(log);
        assertThat(actual).as(context).extracting(TestBatches.Rec::offset).isEqualTo(expectedOffsets);
        assertThat(TestBatches.values(actual)).as(context).isEqualTo(expectedValues);
    }
}
