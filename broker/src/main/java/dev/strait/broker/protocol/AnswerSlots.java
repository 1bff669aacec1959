package dev.strait.broker.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;

/**
 * The answers to a request about several groups, each filled on the loop of its group's shard (in any order, from
 * any thread); whoever fills the last slot hands every answer, in the request's order, to {@code whenAll}.
 */
final class AnswerSlots<T> {
    private final AtomicReferenceArray<T> slots;
    private final AtomicInteger remaining;
    private final Consumer<List<T>> whenAll;

    AnswerSlots(int size, Consumer<List<T>> whenAll) {
        this.slots = new AtomicReferenceArray<>(size);
        this.remaining = new AtomicInteger(size);
        this.whenAll = whenAll;
    }

    void fill(int index, T answer) {
        slots.set(index, answer);
        if (remaining.decrementAndGet() == 0) {
            List<T> all = new ArrayList<>(slots.length());
            for (int i = 0; i < slots.length(); i++) {
                all.add(slots.get(i));
            }
            whenAll.accept(all);
        }
    }
}
