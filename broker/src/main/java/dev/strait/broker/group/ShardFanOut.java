package dev.strait.broker.group;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.Function;

/** A question put to every shard on its own loop, whose answers are joined, in shard order, into one. */
final class ShardFanOut {
    /** Queues a task to a shard's loop, or runs {@code rejected} here if the coordinator is closing. */
    interface Submit {
        void submit(GroupShard shard, Runnable task, Runnable rejected);
    }

    private ShardFanOut() {}

    /**
     * Asks each shard {@code perShard} on its loop and hands the concatenated answers to {@code callback} on the
     * loop that answered last. A shard whose task is rejected (closing) contributes nothing.
     */
    static <T> void collect(
            GroupShard[] shards, Submit submit, Function<GroupShard, List<T>> perShard, Consumer<List<T>> callback) {
        // Each slot is filled on its shard's loop; the last loop to finish reads them all (the counter orders it).
        AtomicReferenceArray<List<T>> answers = new AtomicReferenceArray<>(shards.length);
        AtomicInteger remaining = new AtomicInteger(shards.length);
        Runnable oneDone = () -> {
            if (remaining.decrementAndGet() == 0) {
                List<T> all = new ArrayList<>();
                for (int i = 0; i < answers.length(); i++) {
                    List<T> answer = answers.get(i);
                    if (answer != null) {
                        all.addAll(answer);
                    }
                }
                callback.accept(all);
            }
        };
        for (int i = 0; i < shards.length; i++) {
            GroupShard shard = shards[i];
            int slot = i;
            submit.submit(
                    shard,
                    () -> {
                        answers.set(slot, perShard.apply(shard));
                        oneDone.run();
                    },
                    oneDone);
        }
    }
}
