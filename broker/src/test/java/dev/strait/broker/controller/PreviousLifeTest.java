package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PreviousLifeTest {

    @TempDir
    Path dir;

    @Test
    void aRegistrationInTheBootStillRunningNamesItsEpoch() throws Exception {
        Path boot = Files.writeString(dir.resolve("boot_id"), "boot-1\n");
        new PreviousLife(dir, boot).record(42);

        assertThat(new PreviousLife(dir, boot).epochIfSameBoot()).isEqualTo(42);
    }

    @Test
    void aRebootMakesThePreviousLifeUnclean() throws Exception {
        Path boot = Files.writeString(dir.resolve("boot_id"), "boot-1");
        new PreviousLife(dir, boot).record(42);
        Files.writeString(boot, "boot-2");

        assertThat(new PreviousLife(dir, boot).epochIfSameBoot()).isEqualTo(RegisterBroker.UNCLEAN);
    }

    @Test
    void noBootIdNoRecordOrAGarbledOneIsUnclean() throws Exception {
        Path missing = dir.resolve("no-such-boot-id");
        new PreviousLife(dir, missing).record(7);
        assertThat(new PreviousLife(dir, missing).epochIfSameBoot()).isEqualTo(RegisterBroker.UNCLEAN);

        Path boot = Files.writeString(dir.resolve("boot_id"), "boot-1");
        assertThat(new PreviousLife(dir.resolve("fresh"), boot).epochIfSameBoot())
                .isEqualTo(RegisterBroker.UNCLEAN);

        Files.writeString(dir.resolve(PreviousLife.FILE_NAME), "boot-1 not-a-number");
        assertThat(new PreviousLife(dir, boot).epochIfSameBoot()).isEqualTo(RegisterBroker.UNCLEAN);
    }
}
