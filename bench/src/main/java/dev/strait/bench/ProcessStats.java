package dev.strait.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Resident memory of a process, from Linux's /proc: current (VmRSS) and peak (VmHWM); its CPU time (utime + stime of
 * every thread); the load average.
 */
final class ProcessStats {
    /** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux the bench runs on. */
    static final double TICKS_PER_SECOND = 100.0;

    private ProcessStats() {}

    /**
     * CPU seconds the process has used so far (user + system, all its threads; children it waited for are not
     * counted), or -1 where /proc is not available or the process is gone.
     */
    static double cpuSeconds(long pid) {
        try {
            long ticks = cpuTicks(Files.readString(Path.of("/proc", String.valueOf(pid), "stat")));
            return ticks < 0 ? -1 : ticks / TICKS_PER_SECOND;
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * CPU seconds so far of the process's JIT compiler threads (HotSpot's C1 and C2), or -1 where /proc is not
     * available. A compiler thread that has ended is missing from the sum (HotSpot starts and stops them as the
     * compile queue grows and shrinks), so over a window this is a lower bound.
     */
    static double compilerCpuSeconds(long pid) {
        long ticks = 0;
        try (var tasks = Files.list(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : (Iterable<Path>) tasks::iterator) {
                try {
                    if (isCompilerThread(Files.readString(task.resolve("comm")))) {
                        ticks += Math.max(0, cpuTicks(Files.readString(task.resolve("stat"))));
                    }
                } catch (IOException e) {
                    // the thread ended while we looked
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            return -1;
        }
        return ticks / TICKS_PER_SECOND;
    }

    /** Whether a thread name from /proc (cut to 15 characters) is one of HotSpot's JIT compiler threads. */
    static boolean isCompilerThread(String comm) {
        String name = comm.trim();
        return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
    }

    /**
     * utime + stime in clock ticks from a /proc/PID/stat line, or -1 if it is not one. The command name (field 2)
     * may hold spaces and parentheses, so fields are counted from its last closing parenthesis.
     */
    static long cpuTicks(String stat) {
        int end = stat.lastIndexOf(')');
        if (end < 0) {
            return -1;
        }
        String[] fields = stat.substring(end + 1).trim().split("\\s+");
        // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
        if (fields.length < 13) {
            return -1;
        }
        try {
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

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
