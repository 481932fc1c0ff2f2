package io.github.loombulkhead;

/**
 * The bulkheads whose permit the current thread's call chain holds. A call chain holds at most one
 * permit of a bulkhead: a nested call that needs a bulkhead its chain already holds (an executor
 * task calling a client bounded by the same bulkhead, a {@code @Bulkhead} method calling another
 * one of the same name) runs under the permit it already has instead of waiting for a second one,
 * which could never come once every permit is held by a waiting outer call.
 */
public final class CallChain {

    private static final ThreadLocal<Held> HELD = new ThreadLocal<>();

    private CallChain() {
    }

    /** Whether the current thread runs under a permit of {@code bulkhead}. */
    public static boolean holds(Bulkhead bulkhead) {
        for (Held held = HELD.get(); held != null; held = held.outer) {
            if (held.bulkhead == bulkhead) {
                return true;
            }
        }
        return false;
    }

    /**
     * Marks the current thread as running under a permit of {@code bulkhead} until the returned
     * scope is closed, on the same thread.
     */
    public static Scope enter(Bulkhead bulkhead) {
        Held outer = HELD.get();
        Held held = (outer != null) ? new Held(bulkhead, outer) : (Held) bulkhead.chainMark();
        HELD.set(held);
        return held;
    }

    /** Marks a thread that is new and holds nothing else; cheaper than {@link #enter}. */
    static void enterNewThread(Bulkhead bulkhead) {
        HELD.set((Held) bulkhead.chainMark());
    }

    /**
     * The mark of {@code bulkhead} alone, on a thread that holds no other permit. It is immutable and closing it only
     * changes the current thread's chain, so each bulkhead keeps one for every thread instead of one per call.
     */
    static Scope markOf(Bulkhead bulkhead) {
        return new Held(bulkhead, null);
    }

    /** Ends what {@link #enterNewThread} began. */
    static void exitNewThread() {
        HELD.remove();
    }

    /**
     * Drops the current thread's innermost mark of {@code bulkhead} until the returned scope is closed, on the same
     * thread: its permit went back while the thread runs on, as a task's future runs the stages that depend on it
     * after the task gave its permit back. A call of that bulkhead made meanwhile waits for a permit of its own.
     */
    static Scope released(Bulkhead bulkhead) {
        Held current = HELD.get();
        Held without = without(current, bulkhead);
        if (without == current) {
            return () -> {
            };
        }
        set(without);
        return () -> set(current);
    }

    private static Held without(Held held, Bulkhead bulkhead) {
        if (held == null) {
            return null;
        }
        if (held.bulkhead == bulkhead) {
            return held.outer;
        }
        Held outer = without(held.outer, bulkhead);
        return (outer == held.outer) ? held : new Held(held.bulkhead, outer);
    }

    /**
     * An empty chain is kept as {@code null}, not removed: the thread's next call would create the entry again, which
     * costs more than the mark itself. A thread that ends takes the entry with it.
     */
    private static void set(Held held) {
        HELD.set(held);
    }

    /** A permit's mark on the current thread; closing it restores the marks that were there before. */
    public interface Scope extends AutoCloseable {

        @Override
        void close();
    }

    private record Held(Bulkhead bulkhead, Held outer) implements Scope {

        @Override
        public void close() {
            set(this.outer);
        }
    }
}
