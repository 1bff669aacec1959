/**
 * Progress of work an operator waits on ({@code strait failback --execute}'s copy, {@code strait failover} over
 * many groups, the demo's start-up, {@code bin/bench}): {@link dev.strait.mirror.progress.Progress} draws one line
 * on stderr, redrawn in place (or whole lines, where a live log shares stderr), and only when stderr is a terminal
 * ({@link dev.strait.mirror.progress.Terminal}), so stdout keeps the result alone. Here, in mirror-core, because both mirror-cli and bench depend on it and nothing
 * may depend on mirror-cli. Imports nothing of Strait's.
 */
package dev.strait.mirror.progress;
