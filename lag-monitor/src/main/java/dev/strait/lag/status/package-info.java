/**
 * The verdict on a sample: {@link dev.strait.lag.status.StatusEvaluator} applies Burrow's lag evaluation rules over
 * a sliding window of snapshots and yields a {@link dev.strait.lag.status.Status} per partition and for the group
 * (the worst partition's) without a guessed lag threshold; optional hard limits are reported beside. Not
 * thread-safe: only the monitor's loop thread feeds it; the {@code GroupStatus} it returns is immutable and is what
 * the HTTP thread and the alerter read. Imports only {@code lag.sample}; the monitor, alert, http and the command
 * line import it.
 */
package dev.strait.lag.status;
