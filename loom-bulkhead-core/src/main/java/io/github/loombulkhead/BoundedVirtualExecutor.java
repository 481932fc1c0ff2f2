package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * An {@link java.util.concurrent.ExecutorService} that runs every task on its own new virtual thread
 * and lets at most {@code maxConcurrentCalls} of them run at once. A task that has to wait sits in
 * the bulkhead's queue as a small object and gets its virtual thread only when a permit is free.
 *
 * <pre>{@code
 * ExecutorService executor = BoundedVirtualExecutor.builder("callee")
 *         .maxConcurrentCalls(100)
 *         .queueCapacity(10_000)
 *         .maxWaitDuration(Duration.ofSeconds(30))
 *         .fair(true)
 *         .build();
 * }</pre>
 *
 * Every accepted task ends in exactly one of three ways: it runs; it is rejected with a
 * {@link BulkheadRejectedException} (its future completes exceptionally, or, for a plain
 * {@link #execute(Runnable)}, the rejection is logged); or it is returned by {@link #shutdownNow()}.
 */
public final class BoundedVirtualExecutor extends AbstractExecutorService implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(BoundedVirtualExecutor.class.getName());

    private final Bulkhead bulkhead;

    private final ThreadFactory threadFactory;

    private final UnaryOperator<Runnable> taskDecorator;

    /** Accepted tasks that have not ended yet (queued or running). */
    private final AtomicInteger outstanding = new AtomicInteger();

    private final Set<Thread> running = ConcurrentHashMap.newKeySet();

    private final CountDownLatch terminated = new CountDownLatch(1);

    private volatile boolean shutdown;

    private volatile boolean stopped;

    private BoundedVirtualExecutor(Bulkhead bulkhead, ThreadFactory threadFactory, UnaryOperator<Runnable> decorator) {
        this.bulkhead = bulkhead;
        this.threadFactory = threadFactory;
        this.taskDecorator = decorator;
    }

    /** A builder for an executor with its own bulkhead called {@code name}. */
    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** An executor that enforces an existing, possibly shared, bulkhead. */
    public static BoundedVirtualExecutor of(Bulkhead bulkhead) {
        return new Builder(Objects.requireNonNull(bulkhead, "bulkhead must not be null").getName()).bulkhead(bulkhead)
            .build();
    }

    /** The bulkhead that bounds this executor: its limit, queue, counters and listeners. */
    public Bulkhead getBulkhead() {
        return this.bulkhead;
    }

    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "task must not be null");
        this.outstanding.incrementAndGet();
        if (this.shutdown) {
            taskEnded();
            throw this.bulkhead.rejection(RejectionReason.SHUT_DOWN, 0, "executor is shut down");
        }
        boolean started = false;
        try {
            Runnable task = (this.taskDecorator != null)
                    ? Objects.requireNonNull(this.taskDecorator.apply(command), "taskDecorator returned null")
                    : command;
            if (this.bulkhead.tryAcquirePermission()) {
                start(task);
            }
            else {
                // Only a task that may have to wait needs a queue entry.
                QueuedTask queued = new QueuedTask(task, command);
                if (command instanceof BulkheadFutureTask<?> future) {
                    future.queued = queued;
                }
                if (this.bulkhead.acquireOrEnqueue(queued)) {
                    start(task);
                }
            }
            started = true;
        }
        finally {
            if (!started) {
                taskEnded();
            }
        }
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new BulkheadFutureTask<>(Objects.requireNonNull(runnable, "task must not be null"), value);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new BulkheadFutureTask<>(Objects.requireNonNull(callable, "task must not be null"));
    }

    private void start(Runnable task) {
        Thread thread;
        try {
            thread = this.threadFactory.newThread(() -> run(task));
            if (thread == null) {
                throw new IllegalStateException("thread factory returned null");
            }
            thread.start();
        }
        catch (RuntimeException | Error ex) {
            this.bulkhead.releasePermission();
            throw ex;
        }
    }

    private void run(Runnable task) {
        Thread current = Thread.currentThread();
        this.running.add(current);
        if (this.stopped) {
            current.interrupt();
        }
        long startedAt = System.nanoTime();
        try {
            task.run();
        }
        finally {
            this.running.remove(current);
            this.bulkhead.onComplete(System.nanoTime() - startedAt);
            taskEnded();
        }
    }

    private void taskEnded() {
        if (this.outstanding.decrementAndGet() == 0 && this.shutdown) {
            this.terminated.countDown();
        }
    }

    @Override
    public void shutdown() {
        this.shutdown = true;
        if (this.outstanding.get() == 0) {
            this.terminated.countDown();
        }
    }

    /**
     * Refuses new tasks, removes this executor's queued tasks and returns them (they never started),
     * and interrupts the running ones.
     */
    @Override
    public List<Runnable> shutdownNow() {
        this.stopped = true;
        shutdown();
        List<Runnable> neverStarted = new ArrayList<>();
        for (Bulkhead.Waiter waiter : this.bulkhead.withdrawAll((w) -> w instanceof QueuedTask t && t.owner() == this)) {
            neverStarted.add(((QueuedTask) waiter).command);
            taskEnded();
        }
        for (Thread thread : this.running) {
            thread.interrupt();
        }
        return neverStarted;
    }

    @Override
    public boolean isShutdown() {
        return this.shutdown;
    }

    @Override
    public boolean isTerminated() {
        return this.terminated.getCount() == 0;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return this.terminated.await(timeout, unit);
    }

    @Override
    public String toString() {
        return "BoundedVirtualExecutor[" + this.bulkhead + ", shutdown=" + this.shutdown + "]";
    }

    /** A task waiting for a permit: about 32 bytes besides the task itself. */
    private final class QueuedTask extends Bulkhead.Waiter {

        private final Runnable task;

        private final Runnable command;

        QueuedTask(Runnable task, Runnable command) {
            this.task = task;
            this.command = command;
        }

        BoundedVirtualExecutor owner() {
            return BoundedVirtualExecutor.this;
        }

        @Override
        protected void onPermit(long waitNanos) {
            try {
                start(this.task);
            }
            catch (RuntimeException | Error ex) {
                if (this.command instanceof BulkheadFutureTask<?> future) {
                    future.fail(ex);
                }
                logger.log(Level.ERROR, "Bulkhead '" + BoundedVirtualExecutor.this.bulkhead.getName()
                        + "' could not start a task", ex);
                taskEnded();
            }
        }

        @Override
        protected void onReject(BulkheadRejectedException rejection) {
            try {
                if (this.command instanceof BulkheadFutureTask<?> future) {
                    future.reject(rejection);
                }
                else {
                    logger.log(Level.WARNING, rejection.getMessage() + "; task " + this.command + " did not run");
                }
            }
            finally {
                taskEnded();
            }
        }
    }

    /** The future of a submitted task; cancelling it while it waits takes it out of the queue. */
    private final class BulkheadFutureTask<V> extends FutureTask<V> {

        volatile QueuedTask queued;

        BulkheadFutureTask(Callable<V> callable) {
            super(callable);
        }

        BulkheadFutureTask(Runnable runnable, V result) {
            super(runnable, result);
        }

        void reject(BulkheadRejectedException rejection) {
            setException(rejection);
        }

        void fail(Throwable failure) {
            setException(failure);
        }

        @Override
        protected void done() {
            QueuedTask waiting = this.queued;
            if (isCancelled() && waiting != null && BoundedVirtualExecutor.this.bulkhead.withdraw(waiting)) {
                taskEnded();
            }
        }
    }

    /** Builds a {@link BoundedVirtualExecutor}; see the class documentation for the defaults. */
    public static final class Builder {

        private final String name;

        private final BulkheadConfig.Builder config = BulkheadConfig.custom();

        private Bulkhead bulkhead;

        private BulkheadRegistry registry;

        private ThreadFactory threadFactory;

        private UnaryOperator<Runnable> taskDecorator;

        private Builder(String name) {
            this.name = name;
        }

        /** Maximum number of tasks running at once; must be at least 1 (default 100). */
        public Builder maxConcurrentCalls(int maxConcurrentCalls) {
            this.config.maxConcurrentCalls(maxConcurrentCalls);
            return this;
        }

        /** Maximum number of tasks waiting to start; must be 0 or more (default 10,000). */
        public Builder queueCapacity(int queueCapacity) {
            this.config.queueCapacity(queueCapacity);
            return this;
        }

        /** How long a task may wait to start before it is rejected (default 60 s). */
        public Builder maxWaitDuration(Duration maxWaitDuration) {
            this.config.maxWaitDuration(maxWaitDuration);
            return this;
        }

        /** Whether tasks start in submission order (default {@code true}); otherwise newest first. */
        public Builder fair(boolean fair) {
            this.config.fair(fair);
            return this;
        }

        /** Starts from an existing config; later builder calls override its values. */
        public Builder config(BulkheadConfig config) {
            Objects.requireNonNull(config, "config must not be null");
            this.config.maxConcurrentCalls(config.getMaxConcurrentCalls())
                .queueCapacity(config.getQueueCapacity())
                .maxWaitDuration(config.getMaxWaitDuration())
                .fair(config.isFair());
            return this;
        }

        /** Enforces this existing bulkhead instead of creating one; config calls are then ignored. */
        public Builder bulkhead(Bulkhead bulkhead) {
            this.bulkhead = bulkhead;
            return this;
        }

        /** Takes the bulkhead by name from the registry (created with this builder's config if absent). */
        public Builder registry(BulkheadRegistry registry) {
            this.registry = registry;
            return this;
        }

        /**
         * Factory of the virtual threads that run tasks. The default names every thread after the bulkhead (one
         * shared name, so starting a thread allocates no name; thread dumps tell virtual threads apart by id).
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = threadFactory;
            return this;
        }

        /** Wraps each task at submission, on the submitting thread (context propagation, MDC). */
        public Builder taskDecorator(UnaryOperator<Runnable> taskDecorator) {
            this.taskDecorator = taskDecorator;
            return this;
        }

        /**
         * Builds the executor.
         * @throws IllegalArgumentException naming the invalid setting and its value
         */
        public BoundedVirtualExecutor build() {
            Bulkhead.requireName(this.name);
            Bulkhead target = this.bulkhead;
            if (target == null) {
                BulkheadConfig built = this.config.build();
                target = (this.registry != null) ? this.registry.bulkhead(this.name, built) : new Bulkhead(this.name, built);
            }
            ThreadFactory factory = (this.threadFactory != null) ? this.threadFactory
                    : Thread.ofVirtual().name(this.name).factory();
            return new BoundedVirtualExecutor(target, factory, this.taskDecorator);
        }
    }
}
