/**
 * The record-by-record check lag cannot make: {@link dev.strait.lag.audit.Auditor} reads a source range and the
 * target copies its provenance header points to, and reports what is missing, duplicated, reordered or altered in
 * an {@link dev.strait.lag.audit.AuditReport}; it runs the mirror's message handler on each source record to know
 * what the target should hold. {@link dev.strait.lag.audit.ContinuousAudit} is the daemon's form (bounded rounds on
 * the monitor's loop thread, an immutable summary for {@code /status}); {@link dev.strait.lag.audit.AuditPlan}
 * chooses the ranges of the one-shot {@code strait lag-monitor audit}, which runs on the command's thread. Not
 * thread-safe. Imports {@code lag.sample}, {@code mirror.config}, {@code mirror.handler} and
 * {@code mirror.provenance}; the monitor, http and the command line import it.
 */
package dev.strait.lag.audit;
