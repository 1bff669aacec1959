package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.SnapshotDownload.Progress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class SnapshotDownloadTest {

    private static final byte[] CONTENT = "0123456789abcdef".getBytes(StandardCharsets.UTF_8);
    private static final int CRC = crc(CONTENT);

    private static byte[] part(int from, int to) {
        return Arrays.copyOfRange(CONTENT, from, to);
    }

    @Test
    void chunksInOrderCompleteTheContent() {
        SnapshotDownload download = new SnapshotDownload(new OffsetAndEpoch(5, 1));
        assertThat(download.accept(CONTENT.length, CRC, part(0, 5))).isEqualTo(Progress.MORE);
        assertThat(download.position()).isEqualTo(5);
        assertThat(download.accept(CONTENT.length, CRC, part(5, 12))).isEqualTo(Progress.MORE);
        assertThat(download.accept(CONTENT.length, CRC, part(12, 16))).isEqualTo(Progress.COMPLETE);
        assertThat(download.content()).isEqualTo(CONTENT);
    }

    @Test
    void aChunkThatChangesTheSizeOrChecksumStartsOver() {
        SnapshotDownload download = new SnapshotDownload(new OffsetAndEpoch(5, 1));
        download.accept(CONTENT.length, CRC, part(0, 5));
        assertThat(download.accept(CONTENT.length + 1, CRC, part(5, 12))).isEqualTo(Progress.RESTARTED);
        assertThat(download.position()).isZero();
        download.accept(CONTENT.length, CRC, part(0, 5));
        assertThat(download.accept(CONTENT.length, CRC + 1, part(5, 12))).isEqualTo(Progress.RESTARTED);
        assertThat(download.position()).isZero();
    }

    @Test
    void overrunsEmptyChunksAndImpossibleSizesStartOver() {
        SnapshotDownload download = new SnapshotDownload(new OffsetAndEpoch(5, 1));
        assertThat(download.accept(4, CRC, part(0, 5))).isEqualTo(Progress.RESTARTED);
        assertThat(download.accept(CONTENT.length, CRC, new byte[0])).isEqualTo(Progress.RESTARTED);
        assertThat(download.accept(0, CRC, new byte[0])).isEqualTo(Progress.RESTARTED);
        assertThat(download.accept(SnapshotDownload.MAX_SNAPSHOT_BYTES + 1, CRC, part(0, 5)))
                .isEqualTo(Progress.RESTARTED);
        assertThat(download.position()).isZero();
    }

    @Test
    void aCompleteContentThatFailsItsChecksumStartsOver() {
        SnapshotDownload download = new SnapshotDownload(new OffsetAndEpoch(5, 1));
        byte[] corrupt = part(0, 16);
        corrupt[3] ^= 1;
        assertThat(download.accept(CONTENT.length, CRC, corrupt)).isEqualTo(Progress.RESTARTED);
        assertThat(download.position()).isZero();
        assertThat(download.accept(CONTENT.length, CRC, part(0, 16))).isEqualTo(Progress.COMPLETE);
    }

    private static int crc(byte[] bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, bytes.length);
        return (int) crc.getValue();
    }
}
