/**
 * The offset-preserving mirror ({@code --offset.preserving}): the matching topics become mirror topics on a Strait
 * companion cluster, whose partition leaders copy the source's batches at the source's offsets, so consumer offsets
 * need no translation. The mirror process stays the control point: {@link dev.strait.mirror.linked.LinkedMirror}
 * (one {@code strait-linked-mirror} thread) checks that the target is a companion cluster
 * ({@link dev.strait.mirror.linked.CompanionProbe}), creates and grows the mirror topics
 * ({@link dev.strait.mirror.linked.TopicPlan}), copies idle groups' offsets verbatim and measures the lag
 * ({@link dev.strait.mirror.linked.GroupPlan}). No record passes through it, and the record-copying engine does not
 * run beside it. {@link dev.strait.mirror.linked.LinkSettings} refuses the options that would change records or
 * topic names. Imports {@code mirror.config}, {@code mirror.metrics} and {@code mirror.sync}'s admin helpers,
 * never the engine; the command line imports it.
 */
package dev.strait.mirror.linked;
