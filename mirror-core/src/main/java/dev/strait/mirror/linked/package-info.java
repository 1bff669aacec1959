/**
 * Mirror topics on a Strait companion cluster, from the mirror process's side: its partition leaders copy the
 * source's batches at the source's offsets, so consumer offsets need no translation.
 *
 * <p>The offset-preserving mirror ({@code --offset.preserving}) stays the control point:
 * {@link dev.strait.mirror.linked.LinkedMirror} (one {@code strait-linked-mirror} thread) checks that the target is a
 * companion cluster ({@link dev.strait.mirror.linked.CompanionProbe}) and runs its rounds: the topic round
 * (MirrorTopicRound: creates and grows the mirror topics from {@link dev.strait.mirror.linked.TopicPlan}, keeps their
 * configs in step), the group round (GroupOffsetRound: copies idle groups' offsets verbatim and measures the lag,
 * {@link dev.strait.mirror.linked.GroupPlan}) and the ACL round (TopicAclRound, with the engine's
 * {@code TopicAclSync}). No record passes through it, and the record-copying engine does not run beside it.
 * {@link dev.strait.mirror.linked.LinkConfig} refuses the options that would change records or topic names.
 *
 * <p>Failover and failback: {@link dev.strait.mirror.linked.MirrorTopicPromotion} promotes mirror topics, each
 * partition cut to its last stable offset; {@link dev.strait.mirror.linked.MirrorTopicFailback} turns the old source's
 * topics into mirrors of the promoted ones, finding where the copies part from leader-epoch lineage (LineageParting,
 * with the lineage the companion brokers keep, SourceLineage, and the old source's epochs, OldSourceEpochs; bisection
 * over records, DivergencePoint, where none was kept). Both pause a topic,
 * save the records past the cut (SuffixCopy, into {@code <topic>.diverged-<time>}) and have the brokers cut
 * (MirrorTopicCut, the steps they share). Imports {@code mirror.config}, {@code mirror.metrics}, {@code mirror.sync}'s admin helpers
 * and, for ACLs only, the engine's {@code TopicAclSync}; the command line imports it.
 */
package dev.strait.mirror.linked;
