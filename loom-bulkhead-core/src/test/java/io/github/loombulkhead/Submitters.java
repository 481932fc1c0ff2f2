package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;

/**
 * The kinds of thread that submit work or call a bulkhead in the concurrency tests; each such test
 * runs once per kind, because platform and virtual callers park and interleave differently.
 */
enum Submitters {

    PLATFORM(Thread.ofPlatform().name("submitter-platform-", 0).daemon(true).factory()),

    VIRTUAL(Thread.ofVirtual().name("submitter-virtual-", 0).factory());

    static final Duration JOIN_TIMEOUT = Duration.ofSeconds(60);

    private final ThreadFactory factory;

    Submitters(ThreadFactory factory) {
        this.factory = factory;
    }

    /** Starts one thread of this kind. */
    Thread start(Runnable body) {
        Thread thread = this.factory.newThread(body);
        thread.start();
        return thread;
    }

    /** Runs {@code body} on a new thread of this kind; the future completes with its result or failure. */
    <T> Started<T> call(Callable<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread thread = start(() -> {
            try {
                result.complete(body.call());
            }
            catch (Throwable ex) {
                result.completeExceptionally(ex);
            }
        });
        return new Started<>(thread, result);
    }

    /**
     * Runs {@code body.run(i)} for every {@code i} below {@code count}, each on its own thread of this
     * kind, all released at once, and waits for them; fails with the first failure of any of them.
     */
    void runConcurrently(int count, IndexedBody body) throws InterruptedException {
        CountDownLatch go = new CountDownLatch(1);
        Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int index = i;
            threads.add(start(() -> {
                try {
                    go.await();
                    body.run(index);
                }
                catch (Throwable ex) {
                    failures.add(ex);
                }
            }));
        }
        go.countDown();
        for (Thread thread : threads) {
            if (!thread.join(JOIN_TIMEOUT)) {
                throw new AssertionError(thread + " did not finish within " + JOIN_TIMEOUT);
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError(failures.size() + " of " + count + " " + this
                    + " threads failed", failures.peek());
            failures.stream().skip(1).forEach(error::addSuppressed);
            throw error;
        }
    }

    /** Work done by one of several concurrent threads, told its index. */
    @FunctionalInterface
    interface IndexedBody {

        void run(int index) throws Exception;
    }

    /** A thread started by {@link #call(Callable)} and the future of its result. */
    record Started<T>(Thread thread, CompletableFuture<T> result) {
    }
}
