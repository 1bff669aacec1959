package dev.strait.canary;

/** The canary's alarm state: probes arrive in time, some are late, or some were lost. */
public enum CanaryState {
    OK,
    LATE,
    LOST
}
