package dev.strait.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Resident memory of a process, from Linux's /proc: current (VmRSS) and peak (VmHWM); the load average. */
final class ProcessStats {
    private ProcessStats() {}

    /** The machine's load average, as /proc/loadavg gives it, or {@code n/a}. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "n/a";
        }
    }

    /** Peak resident set size in MiB, or -1 where /proc is not available. */
    static long peakRssMiB(long pid) {
        return statusKiB(pid, "VmHWM:") / 1024;
    }

    /** Current resident set size in MiB, or -1 where /proc is not available. */
    static long rssMiB(long pid) {
        return statusKiB(pid, "VmRSS:") / 1024;
    }

    static long selfPeakRssMiB() {
        return peakRssMiB(ProcessHandle.current().pid());
    }

    private static long statusKiB(long pid, String field) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
                if (line.startsWith(field)) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | NumberFormatException e) {
            return -1024;
        }
        return -1024;
    }
}
