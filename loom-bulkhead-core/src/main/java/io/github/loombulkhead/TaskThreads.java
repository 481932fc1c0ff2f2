package io.github.loombulkhead;

import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.limit.Outcome;

/**
 * Runs each task of one {@link BoundedVirtualExecutor} on its own new thread, under a permit already
 * held, and ends it: the permit goes back (with an adaptive limit's sample) before the task's future
 * completes, then the task counts as ended in the {@link ExecutorLifecycle}.
 */
final class TaskThreads {

    /**
     * The foreign {@link Future} a task thread runs, set only for such a task: an own task it wraps (an
     * {@code ExecutorCompletionService}'s) takes over its sample and permit, as the wrapper hides the task's failure.
     */
    private static final ThreadLocal<Wrapper> WRAPPER = new ThreadLocal<>();

    private final BoundedVirtualExecutor executor;

    private final Bulkhead bulkhead;

    private final ThreadFactory threadFactory;

    private final ExecutorLifecycle lifecycle;

    TaskThreads(BoundedVirtualExecutor executor, ThreadFactory threadFactory, ExecutorLifecycle lifecycle) {
        this.executor = executor;
        this.bulkhead = executor.getBulkhead();
        this.threadFactory = threadFactory;
        this.lifecycle = lifecycle;
    }

    /**
     * Starts {@code decorated} under a permit the caller took; if that fails, the permit goes back as the permit of
     * a task that never ran does ({@link #notRun}): completed, without a sample, so that an executor's completed
     * count always equals its permitted count.
     */
    void startHolding(Runnable decorated, Runnable submitted) {
        try {
            start(decorated, submitted);
        }
        catch (RuntimeException | Error ex) {
            this.bulkhead.onComplete(0, 0, -1, Outcome.IGNORED);
            throw ex;
        }
    }

    /**
     * Starts {@code decorated} (what the task decorator made of {@code submitted}) on a new thread.
     * @throws RejectedExecutionException if the thread factory gave no thread, or a used one that ended without
     * running the task; the caller still holds the permit
     */
    void start(Runnable decorated, Runnable submitted) {
        TaskRun task = new TaskRun(decorated, submitted);
        Thread thread = this.threadFactory.newThread(task);
        if (thread == null) {
            throw new RejectedExecutionException("Bulkhead '" + this.bulkhead.getName()
                    + "': the thread factory returned null instead of a thread");
        }
        if (thread.getState() == Thread.State.NEW) {
            thread.start();
        }
        else if (!thread.isAlive() && !task.began) {
            // It ended without running the task (a used thread), so the task would never run. (Seeing it ended
            // makes what it did visible here, so the flag needs no volatile write on every task's path.)
            throw new RejectedExecutionException("Bulkhead '" + this.bulkhead.getName()
                    + "': the thread factory returned a thread that had already ended without running the task; "
                    + "a ThreadFactory must return a new, unstarted thread for each task");
        }
        // Otherwise the factory started it itself (ThreadFactory asks for an unstarted thread): it runs the task
        // already, or ran it, and starting it again would fail while the task ran, giving its permit back twice.
    }

    /** What a task's thread runs; it tells whether it began, so that a thread that ended without it is told apart. */
    private final class TaskRun implements Runnable {

        private final Runnable decorated;

        private final Runnable submitted;

        /** Set by the task's thread; read only once that thread has ended. */
        boolean began;

        TaskRun(Runnable decorated, Runnable submitted) {
            this.decorated = decorated;
            this.submitted = submitted;
        }

        @Override
        public void run() {
            this.began = true;
            TaskThreads.this.run(this.decorated, this.submitted);
        }
    }

    private void run(Runnable decorated, Runnable submitted) {
        Thread current = Thread.currentThread();
        this.lifecycle.running(current);
        long startedAt = System.nanoTime();
        int inflight = this.bulkhead.callStarted();
        OwnTask own = this.executor.ownTask(submitted);
        if (own != null) {
            own.startedAt(startedAt, inflight);
        }
        Wrapper wrapper = null;
        if (own == null && submitted instanceof Future<?>) {
            wrapper = new Wrapper(this.executor, startedAt, inflight);
            WRAPPER.set(wrapper);
        }
        CallChain.enterNewThread(this.bulkhead);
        Throwable failure = null;
        try {
            decorated.run();
        }
        catch (Throwable ex) {
            failure = ex;
            throw ex;
        }
        finally {
            CallChain.exitNewThread();
            this.lifecycle.ran(current);
            if (wrapper != null) {
                WRAPPER.remove();
            }
            if (own == null) {
                completedForeign(submitted, wrapper, startedAt, inflight, failure);
            }
            else if (own.claimCompletion()) {
                // The task's future records its own completion; unclaimed, it never ran: cancelled first, or the
                // decorator failed or returned without running it. Its future must still complete.
                notRun(startedAt, inflight, failure);
                if (!own.isDone()) {
                    own.failToStart((failure != null) ? failure : new IllegalStateException("Bulkhead '"
                            + this.bulkhead.getName() + "': the task decorator returned without running the task"));
                }
            }
            this.lifecycle.taskEnded();
        }
    }

    /**
     * Gives the permit of a task whose future the executor did not create back. A foreign future's own record counts
     * (a cancelled one ran as nothing; a failed one caught its failure), and an own task it wrapped gave the permit
     * back already, unless it never ran (cancelled before): then it goes back here, without a sample.
     */
    private void completedForeign(Runnable submitted, Wrapper wrapper, long startedAt, int inflight,
            Throwable failure) {
        if (wrapper != null && wrapper.nested != null) {
            if (wrapper.nested.claimCompletion()) {
                completed(startedAt, inflight, failure, true);
            }
            return;
        }
        Throwable outcome = failure;
        boolean cancelled = false;
        if (failure == null && submitted instanceof Future<?> future) {
            try {
                Future.State state = future.state();
                cancelled = state == Future.State.CANCELLED;
                if (state == Future.State.FAILED) {
                    outcome = future.exceptionNow();
                }
            }
            catch (RuntimeException ex) {
                // A Future of the caller's that cannot say how it ended: sampled as a task that returned.
            }
        }
        completed(startedAt, inflight, outcome, cancelled);
    }

    /**
     * Called by an own task that runs without having been started as one, before it runs: when a foreign future of
     * its executor runs it on a task thread, the task's outcome is the sample and its completion gives the permit
     * back, as if it had been submitted alone.
     */
    static void adopt(OwnTask task) {
        Wrapper wrapper = WRAPPER.get();
        if (wrapper != null && wrapper.executor == task.executor() && wrapper.nested == null) {
            wrapper.nested = task;
            task.startedAt(wrapper.startedAt, wrapper.inflight);
        }
    }

    /**
     * Gives the permit of a task that ran back, with the sample an adaptive limit takes from it: none if its future
     * was cancelled while it ran (its time was cut short, or its result is unwanted).
     */
    void completed(long startedAt, int inflight, Throwable failure, boolean cancelled) {
        long ran = System.nanoTime() - startedAt;
        this.bulkhead.onComplete(ran, ran, inflight, cancelled ? Outcome.IGNORED : this.bulkhead.outcomeOf(failure));
    }

    /**
     * Gives the permit of a task that never ran back: its time says nothing about the callee, so an adaptive limit
     * takes no sample from it, unless a decorator failed with an overload signal.
     */
    private void notRun(long startedAt, int inflight, Throwable failure) {
        long held = System.nanoTime() - startedAt;
        boolean overload = failure != null && this.bulkhead.outcomeOf(failure) == Outcome.DROPPED;
        this.bulkhead.onComplete(held, held, inflight, overload ? Outcome.DROPPED : Outcome.IGNORED);
    }

    /** A foreign future running on a task thread, and the own task it wraps once that runs. */
    private static final class Wrapper {

        final BoundedVirtualExecutor executor;

        final long startedAt;

        final int inflight;

        /** Read and written on the task thread only. */
        OwnTask nested;

        Wrapper(BoundedVirtualExecutor executor, long startedAt, int inflight) {
            this.executor = executor;
            this.startedAt = startedAt;
            this.inflight = inflight;
        }
    }
}
