package io.github.loombulkhead.http;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Calls started at once, each on its own virtual thread, typically to {@link LoopbackServer}'s {@code /held} until
 * the test releases them; {@link #join()} waits for all of them and fails if one failed or did not end.
 */
public final class Callers {

    private static final Duration MAX_WAIT = Duration.ofSeconds(30);

    private final List<Thread> threads = new ArrayList<>();

    private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

    private Callers() {
    }

    /** Starts {@code count} threads that each make {@code call} once. */
    public static Callers start(int count, Runnable call) {
        return new Callers().andStart(count, call);
    }

    /** Starts {@code count} more threads that each make {@code call} once. */
    public Callers andStart(int count, Runnable call) {
        for (int i = 0; i < count; i++) {
            this.threads.add(Thread.ofVirtual().start(() -> {
                try {
                    call.run();
                }
                catch (Throwable ex) {
                    this.failures.add(ex);
                }
            }));
        }
        return this;
    }

    /** Waits for every call to end, at most 30 s each. @throws AssertionError if one did not end or failed */
    public void join() throws InterruptedException {
        for (Thread thread : this.threads) {
            if (!thread.join(MAX_WAIT)) {
                throw new AssertionError("A call did not end within " + MAX_WAIT);
            }
        }
        if (!this.failures.isEmpty()) {
            AssertionError error = new AssertionError(this.failures.size() + " of " + this.threads.size()
                    + " calls failed", this.failures.peek());
            this.failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }
}
