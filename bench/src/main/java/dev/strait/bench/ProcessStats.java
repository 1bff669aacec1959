package dev.strait.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Peak resident memory of a process, from Linux's /proc (VmHWM). */
final class ProcessStats {
    private ProcessStats() {
    }

    /** Peak resident set size in MiB, or -1 where /proc is not available. */
    static long peakRssMiB(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
        return -1;
    }

    static long selfPeakRssMiB() {
        return peakRssMiB(ProcessHandle.current().pid());
    }
}
