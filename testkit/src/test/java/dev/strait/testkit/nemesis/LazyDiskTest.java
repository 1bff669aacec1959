package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lazy disk on its own: what survives a power loss (synced or written-back contents, every namespace operation)
 * and what does not (everything else), seen through ordinary Java file I/O, as the brokers do it. Needs /dev/fuse,
 * root and python3-fusepy: skipped without them on a developer's machine, failed in CI (CI set), which installs them.
 */
class LazyDiskTest {
    @TempDir
    Path dir;

    private LazyDisk disk;
    private Path mnt;

    @BeforeEach
    void mount() {
        LazyDisk.require();
        disk = LazyDisk.mount(
                dir.resolve("backing"), dir.resolve("mnt"), Duration.ofSeconds(30), dir.resolve("lazyfs.log"));
        mnt = disk.mountPoint();
    }

    @AfterEach
    void unmount() {
        if (disk != null) {
            disk.close();
            assertThat(LazyDisk.mounted(mnt)).as("still mounted after close").isFalse();
        }
    }

    private static byte[] fill(char c, int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) c);
        return b;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    @Test
    void theSyncedPartSurvivesAndTheRestIsLost() throws IOException {
        Path file = mnt.resolve("segment.log");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(fill('a', 3000)));
            ch.force(false); // fdatasync
            ch.write(ByteBuffer.wrap(fill('b', 5000)));
        }
        // Before the loss the unsynced part is read like any other.
        assertThat(Files.readAllBytes(file)).isEqualTo(concat(fill('a', 3000), fill('b', 5000)));
        assertThat(disk.unsynced()).isEqualTo(new LazyDisk.Unsynced(5000, 1));

        LazyDisk.Unsynced lost = disk.loseUnsyncedWrites();

        assertThat(lost).isEqualTo(new LazyDisk.Unsynced(5000, 1));
        assertThat(Files.readAllBytes(file)).isEqualTo(fill('a', 3000));
        assertThat(Files.size(file)).isEqualTo(3000);
        assertThat(disk.unsynced()).isEqualTo(new LazyDisk.Unsynced(0, 0));
    }

    @Test
    void anOverwriteInTheMiddleIsLostButTheFileKeepsItsSyncedBytes() throws IOException {
        Path file = mnt.resolve("index");
        Files.write(file, fill('x', 4096));
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
            ch.write(ByteBuffer.wrap(fill('y', 10)), 100);
        }
        byte[] seen = Files.readAllBytes(file);
        assertThat(Arrays.copyOfRange(seen, 100, 110)).isEqualTo(fill('y', 10));

        disk.loseUnsyncedWrites();

        assertThat(Files.readAllBytes(file)).isEqualTo(fill('x', 4096));
    }

    @Test
    void anUnsyncedTruncateIsUndoneAndASyncedOneIsKept() throws IOException {
        Path undone = mnt.resolve("undone");
        Path kept = mnt.resolve("kept");
        for (Path p : new Path[] {undone, kept}) {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(fill('c', 3000)));
                ch.force(true);
                ch.truncate(1000); // ftruncate
                ch.write(ByteBuffer.wrap(fill('d', 500)), 1000);
                if (p == kept) {
                    ch.force(true);
                }
            }
        }
        byte[] expectedNow = concat(fill('c', 1000), fill('d', 500));
        assertThat(Files.readAllBytes(undone)).isEqualTo(expectedNow);

        disk.loseUnsyncedWrites();

        assertThat(Files.readAllBytes(undone)).isEqualTo(fill('c', 3000));
        assertThat(Files.readAllBytes(kept)).isEqualTo(expectedNow);
    }

    @Test
    void aTruncateThenExtendReadsZerosWhereTheOldBytesWere() throws IOException {
        Path file = mnt.resolve("grown");
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap(fill('e', 100)));
            ch.force(true);
            ch.truncate(10);
            ch.write(ByteBuffer.wrap(fill('f', 10)), 90);
        }
        byte[] expected = concat(concat(fill('e', 10), new byte[80]), fill('f', 10));
        assertThat(Files.readAllBytes(file)).isEqualTo(expected);
    }

    @Test
    void aRenameIsDurableButContentsUnsyncedBeforeItAreLost() throws IOException {
        Path checkpoint = mnt.resolve("checkpoint");
        Files.write(checkpoint, "old".getBytes(StandardCharsets.UTF_8));
        syncFile(checkpoint);
        // The atomic replace done right: write the temp file, fsync it, rename it over the old one.
        Path synced = mnt.resolve("checkpoint.tmp");
        Files.write(synced, "new-synced".getBytes(StandardCharsets.UTF_8));
        syncFile(synced);
        Files.move(synced, checkpoint, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        // Done wrong: no fsync before the rename.
        Path other = mnt.resolve("other");
        Files.write(other, "old-other".getBytes(StandardCharsets.UTF_8));
        syncFile(other);
        Path unsynced = mnt.resolve("other.tmp");
        Files.write(unsynced, "new-unsynced".getBytes(StandardCharsets.UTF_8));
        Files.move(unsynced, other, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertThat(Files.readString(other)).isEqualTo("new-unsynced");

        disk.loseUnsyncedWrites();

        assertThat(Files.readString(checkpoint)).isEqualTo("new-synced");
        assertThat(Files.exists(synced)).isFalse();
        assertThat(Files.exists(unsynced)).as("the rename itself is durable").isFalse();
        assertThat(Files.readString(other))
                .as("the replaced file's contents were never synced")
                .isEmpty();
    }

    @Test
    void anUnlinkedFileStaysGoneAndACreatedOneStaysEmpty() throws IOException {
        Path doomed = mnt.resolve("doomed");
        Files.write(doomed, fill('g', 100));
        Files.delete(doomed);
        Path sub = Files.createDirectories(mnt.resolve("topic-0"));
        Path fresh = sub.resolve("00000000000000000000.log");
        Files.write(fresh, fill('h', 100));

        disk.loseUnsyncedWrites();

        assertThat(Files.exists(doomed)).isFalse();
        assertThat(Files.exists(fresh)).isTrue();
        assertThat(Files.size(fresh)).isZero();
    }

    @Test
    void writesOlderThanTheWriteBackAgeSurvive() throws IOException, InterruptedException {
        disk.close();
        disk = LazyDisk.mount(dir.resolve("backing"), mnt, Duration.ofMillis(500), dir.resolve("lazyfs.log"));
        Path file = mnt.resolve("aged");
        Files.write(file, fill('i', 1000));
        assertThat(disk.unsynced().files()).isEqualTo(1);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (disk.unsynced().files() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(disk.unsynced().files()).as("written back within 10 s").isZero();

        disk.loseUnsyncedWrites();

        assertThat(Files.readAllBytes(file)).isEqualTo(fill('i', 1000));
    }

    @Test
    void mappedWritesSurviveOnlyOnceForced() throws IOException {
        // Kafka's offset and time indexes are written through a shared mapping and forced (msync) on flush.
        Path file = mnt.resolve("00000000000000000000.index");
        try (FileChannel ch =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer map = ch.map(FileChannel.MapMode.READ_WRITE, 0, 8192);
            map.put(0, fill('j', 16));
            map.force();
            map.put(4096, fill('k', 16));
            assertThat(Arrays.copyOfRange(Files.readAllBytes(file), 4096, 4112)).isEqualTo(fill('k', 16));
        }
        // The mapping's dirty page is still in the page cache: the loss pushes it out first, as plain writes.

        disk.loseUnsyncedWrites();

        byte[] after = Files.readAllBytes(file);
        assertThat(after).hasSize(8192);
        assertThat(Arrays.copyOfRange(after, 0, 16)).isEqualTo(fill('j', 16));
        assertThat(Arrays.copyOfRange(after, 4096, 4112)).isEqualTo(new byte[16]);
    }

    private static void syncFile(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }
}
