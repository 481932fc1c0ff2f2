package io.github.loombulkhead;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The run state of one {@link BoundedVirtualExecutor} and the tasks it still owes an end:
 * {@code RUNNING -> SHUTDOWN -> TERMINATED}, with {@code shutdownNow()} also marking it stopped
 * (its running tasks are interrupted, tasks starting later find themselves interrupted).
 * It terminates once shut down and every accepted task (queued or running) has ended.
 */
final class ExecutorLifecycle {

    /** Accepted tasks that have not ended yet (queued or running). */
    private final AtomicInteger outstanding = new AtomicInteger();

    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

    private final CountDownLatch terminated = new CountDownLatch(1);

    private volatile boolean shutdown;

    private volatile boolean stopped;

    /** Counts a new task as outstanding; {@code false} (and nothing counted) when shut down. */
    boolean accept() {
        this.outstanding.incrementAndGet();
        if (this.shutdown) {
            taskEnded();
            return false;
        }
        return true;
    }

    /** An accepted task ended: it ran, was rejected or withdrawn. */
    void taskEnded() {
        if (this.outstanding.decrementAndGet() == 0 && this.shutdown) {
            this.terminated.countDown();
        }
    }

    /** The current thread runs a task; it is interrupted at once when the executor was stopped. */
    void running(Thread thread) {
        this.running.add(thread);
        if (this.stopped) {
            thread.interrupt();
        }
    }

    void ran(Thread thread) {
        this.running.remove(thread);
    }

    void shutdown() {
        this.shutdown = true;
        if (this.outstanding.get() == 0) {
            this.terminated.countDown();
        }
    }

    /** Shuts down and marks the executor stopped; its running tasks are interrupted by {@link #interruptRunning()}. */
    void stop() {
        this.stopped = true;
        shutdown();
    }

    void interruptRunning() {
        for (Thread thread : this.running) {
            thread.interrupt();
        }
    }

    boolean isShutdown() {
        return this.shutdown;
    }

    boolean isStopped() {
        return this.stopped;
    }

    boolean isTerminated() {
        return this.terminated.getCount() == 0;
    }

    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return this.terminated.await(timeout, unit);
    }
}
