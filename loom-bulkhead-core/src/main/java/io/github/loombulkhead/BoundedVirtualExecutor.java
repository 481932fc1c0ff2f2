package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;

/**
 * An {@link java.util.concurrent.ExecutorService} that runs every task on its own new virtual thread
 * and lets at most {@code maxConcurrentCalls} of them run at once. A task that has to wait sits in
 * the bulkhead's queue as a small object and gets its virtual thread only when a permit is free.
 *
 * <pre>{@code
 * BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee")
 *         .maxConcurrentCalls(100)
 *         .queueCapacity(10_000)
 *         .maxWaitDuration(Duration.ofSeconds(30))
 *         .fair(true)
 *         .build();
 * }</pre>
 *
 * <p>Every accepted task ends in exactly one of three ways: it runs; it is rejected with a
 * {@link BulkheadRejectedException}; or it is returned by {@link #shutdownNow()}. Where the
 * rejection goes depends on who holds the result:
 * <ul>
 * <li>Futures this executor creates — {@link #submit}, {@link #invokeAll}, {@link #invokeAny},
 * {@link #supplyAsync}, {@link #runAsync} — wait at most {@code maxWaitDuration}
 * and then complete exceptionally with the rejection. Cancelling one while it waits frees its
 * queue slot at once.</li>
 * <li>{@link #submitWithoutTimeout} is for a caller that may never read the future (Spring MVC's
 * {@code Callable} processing): refused only at once, never timed out once accepted, and cancelling
 * its future while it waits frees its queue slot.</li>
 * <li>A plain {@link #execute(Runnable)} of any other {@code Runnable} (for example what
 * {@code CompletableFuture.runAsync(task, executor)} passes, or the wrapper an
 * {@link java.util.concurrent.ExecutorCompletionService} submits) can only be refused while
 * {@code execute} runs: when the queue is full or the executor is shut down. Once accepted it is
 * never timed out, because nobody could be told; it waits for a permit however long that takes.
 * Use {@link #supplyAsync}/{@link #runAsync} for a {@code CompletableFuture} that honours the
 * max wait.</li>
 * </ul>
 * A task's permit is given back, and the task counted as completed, before the future this executor created for it
 * completes.
 * The task runs under {@link CallChain}: a bulkhead-bounded call it makes to the same bulkhead uses
 * the task's permit instead of waiting for a second one.
 */
public final class BoundedVirtualExecutor extends AbstractExecutorService implements AutoCloseable {

    private static final System.Logger logger = System.getLogger(BoundedVirtualExecutor.class.getName());

    private final Bulkhead bulkhead;

    private final UnaryOperator<Runnable> taskDecorator;

    private final ExecutorLifecycle lifecycle = new ExecutorLifecycle();

    private final TaskThreads threads;

    private BoundedVirtualExecutor(Bulkhead bulkhead, ThreadFactory threadFactory, UnaryOperator<Runnable> decorator) {
        this.bulkhead = bulkhead;
        this.taskDecorator = decorator;
        this.threads = new TaskThreads(this, threadFactory, this.lifecycle);
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

    /**
     * Runs {@code command} on its own virtual thread once a permit is free.
     * @throws BulkheadRejectedException at once when the queue is full or the executor is shut down
     */
    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "task must not be null");
        if (!this.lifecycle.accept()) {
            throw this.bulkhead.countRejection(RejectionReason.SHUT_DOWN, 0, "executor is shut down");
        }
        boolean accepted = false;
        try {
            Runnable decorated = (this.taskDecorator != null)
                    ? Objects.requireNonNull(this.taskDecorator.apply(command), "taskDecorator returned null")
                    : command;
            if (this.bulkhead.tryAcquirePermit()) {
                this.threads.startHolding(decorated, command);
            }
            else {
                enqueue(decorated, command);
            }
            accepted = true;
        }
        finally {
            if (!accepted) {
                taskEnded();
            }
        }
    }

    /**
     * Runs {@code task} once a permit is free, for a caller that may never read the returned future: it is refused
     * only at once (a full queue, a shut-down executor: {@link java.util.concurrent.RejectedExecutionException}, a
     * {@link BulkheadRejectedException}) and never timed out once accepted, as a plain {@link #execute} is, but
     * cancelling its future while it waits frees its queue slot, and {@link #shutdownNow()} completes it.
     */
    public Future<?> submitWithoutTimeout(Runnable task) {
        ExecutorFutureTask<Object> future = new ExecutorFutureTask<>(this,
                Objects.requireNonNull(task, "task must not be null"), null);
        future.withoutTimeout();
        execute(future);
        return future;
    }

    /** A task that has to wait gets a queue entry; one of this executor's own futures also expires, as a rule. */
    private void enqueue(Runnable decorated, Runnable submitted) {
        OwnTask own = ownTask(submitted);
        QueuedTask queued = QueuedTask.of(this, decorated, submitted, own != null && own.expires());
        if (own != null) {
            own.queuedAs(queued);
        }
        if (this.bulkhead.acquireOrEnqueue(queued)) {
            this.threads.startHolding(decorated, submitted);
        }
        else if (this.lifecycle.isStopped() && this.bulkhead.withdraw(queued)) {
            // shutdownNow() ran while it was being queued and did not see it.
            throw this.bulkhead.countRejection(RejectionReason.SHUT_DOWN, 0, "executor is shut down");
        }
    }

    /**
     * Runs {@code supplier} on its own virtual thread once a permit is free. The future completes
     * with the result, or exceptionally with a {@link BulkheadRejectedException} when the task is
     * refused (also after waiting {@code maxWaitDuration}); cancelling it while it waits frees its
     * queue slot.
     */
    public <T> CompletableFuture<T> supplyAsync(Supplier<T> supplier) {
        Objects.requireNonNull(supplier, "supplier must not be null");
        ExecutorCompletableFuture<T> future = new ExecutorCompletableFuture<>(this, supplier);
        try {
            execute(future);
        }
        catch (RejectedExecutionException ex) {
            future.completeExceptionally(ex);
        }
        return future;
    }

    /** Like {@link #supplyAsync(Supplier)} for a task without a result. */
    public CompletableFuture<Void> runAsync(Runnable task) {
        Objects.requireNonNull(task, "task must not be null");
        return supplyAsync(() -> {
            task.run();
            return null;
        });
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new ExecutorFutureTask<>(this, Objects.requireNonNull(runnable, "task must not be null"), value);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new ExecutorFutureTask<>(this, Objects.requireNonNull(callable, "task must not be null"));
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return InvokeAny.invokeAny(this, tasks, false, 0);
        }
        catch (TimeoutException ex) {
            throw new IllegalStateException("an untimed invokeAny timed out", ex);
        }
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return InvokeAny.invokeAny(this, tasks, true, unit.toNanos(timeout));
    }

    /** This executor's own future of a task, or {@code null} for any other submitted {@code Runnable}. */
    OwnTask ownTask(Runnable submitted) {
        return (submitted instanceof OwnTask own && own.executor() == this) ? own : null;
    }

    void start(Runnable decorated, Runnable submitted) {
        this.threads.start(decorated, submitted);
    }

    void completed(long startedAt, int inflight, Throwable failure, boolean cancelled) {
        this.threads.completed(startedAt, inflight, failure, cancelled);
    }

    void taskEnded() {
        this.lifecycle.taskEnded();
    }

    @Override
    public void shutdown() {
        this.lifecycle.shutdown();
    }

    /**
     * Refuses new tasks, removes this executor's queued tasks and returns them (they never started;
     * the futures this executor created for them complete with a {@code shut-down} rejection), and
     * interrupts the running ones.
     */
    @Override
    public List<Runnable> shutdownNow() {
        this.lifecycle.stop();
        List<Waiter> withdrawn = this.bulkhead.permits()
            .withdrawAll((w) -> w instanceof QueuedTask t && t.owner() == this);
        // Interrupted first: a future's rejection runs its caller's dependent stages here, and one that waits for a
        // running task (a fallback joining it) would otherwise wait for an interrupt that never comes.
        this.lifecycle.interruptRunning();
        List<Runnable> neverStarted = new ArrayList<>();
        for (Waiter waiter : withdrawn) {
            QueuedTask queued = (QueuedTask) waiter;
            neverStarted.add(queued.submitted());
            OwnTask own = ownTask(queued.submitted());
            if (own != null) {
                own.reject(new BulkheadRejectedException(this.bulkhead.getName(), RejectionReason.SHUT_DOWN,
                        "executor was shut down while the task waited"));
            }
            taskEnded();
        }
        return neverStarted;
    }

    /**
     * Shuts down and waits until every task ended, as {@link java.util.concurrent.ExecutorService#close()} does:
     * interrupted, it stops them as {@link #shutdownNow()} does, waits on and keeps the interrupt. The queued tasks
     * {@code shutdownNow()} returns are dropped there, so each one whose future this executor did not create (a plain
     * {@code execute}, such as {@code CompletableFuture.runAsync(task, executor)}) is logged at {@code WARNING}: nobody
     * else can be told that it never ran. The futures this executor created complete with a {@code shut-down}
     * rejection.
     */
    @Override
    public void close() {
        if (isTerminated()) {
            return;
        }
        shutdown();
        boolean interrupted = false;
        boolean terminated = false;
        while (!terminated) {
            try {
                terminated = awaitTermination(1, TimeUnit.DAYS);
            }
            catch (InterruptedException ex) {
                if (!interrupted) {
                    interrupted = true;
                    for (Runnable task : shutdownNow()) {
                        if (ownTask(task) == null) {
                            logger.log(Level.WARNING, "Executor of bulkhead '" + this.bulkhead.getName()
                                    + "' was closed while interrupted: task " + task + " never ran");
                        }
                    }
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isShutdown() {
        return this.lifecycle.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return this.lifecycle.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return this.lifecycle.awaitTermination(timeout, unit);
    }

    @Override
    public String toString() {
        return "BoundedVirtualExecutor[" + this.bulkhead + ", shutdown=" + this.lifecycle.isShutdown() + "]";
    }

    /** Builds a {@link BoundedVirtualExecutor}; see the class documentation for the defaults. */
    public static final class Builder {

        private final String name;

        /** Only the settings made explicitly; the rest come from the registry or the defaults. */
        private final ExecutorSettings settings = new ExecutorSettings();

        private Bulkhead bulkhead;

        private BulkheadRegistry registry;

        private ThreadFactory threadFactory;

        private UnaryOperator<Runnable> taskDecorator;

        private Builder(String name) {
            this.name = name;
        }

        /** Maximum number of tasks running at once; must be at least 1 (default 100). */
        public Builder maxConcurrentCalls(int maxConcurrentCalls) {
            this.settings.maxConcurrentCalls = maxConcurrentCalls;
            return this;
        }

        /** Maximum number of tasks waiting to start; must be 0 or more (default 10,000). */
        public Builder queueCapacity(int queueCapacity) {
            this.settings.queueCapacity = queueCapacity;
            return this;
        }

        /** How long a task may wait to start before it is rejected (default 60 s). */
        public Builder maxWaitDuration(Duration maxWaitDuration) {
            this.settings.maxWaitDuration = maxWaitDuration;
            return this;
        }

        /** Whether tasks start in submission order (default {@code true}); otherwise newest first. */
        public Builder fair(boolean fair) {
            this.settings.fair = fair;
            return this;
        }

        /**
         * Makes the limit adaptive: {@code adaptive}'s algorithm finds it below {@code maxConcurrentCalls}, which
         * becomes its ceiling (default: a static limit).
         */
        public Builder adaptive(AdaptiveLimitConfig adaptive) {
            this.settings.adaptive = adaptive;
            return this;
        }

        /**
         * Which failed tasks an adaptive limit takes as overload signals (default: {@link DropClassifier#ofDefaults()}:
         * timeouts, refused connections, Spring's 503 and 429 client exceptions).
         */
        public Builder dropClassifier(DropClassifier dropClassifier) {
            this.settings.dropClassifier = dropClassifier;
            return this;
        }

        /** Starts from an existing config; later builder calls override its values. */
        public Builder config(BulkheadConfig config) {
            Objects.requireNonNull(config, "config must not be null");
            this.settings.copy(config);
            return this;
        }

        /** Enforces this existing bulkhead instead of creating one; config calls are then ignored. */
        public Builder bulkhead(Bulkhead bulkhead) {
            this.bulkhead = bulkhead;
            return this;
        }

        /**
         * Takes the bulkhead by name from the registry. The registry's configuration for the name wins over
         * this builder's defaults; a setting made on this builder that contradicts it fails {@link #build()}.
         * When the registry has no configuration of the name's own, an existing bulkhead of the name is shared (a
         * setting that contradicts its configuration fails {@link #build()} too); otherwise the bulkhead is created
         * from the registry's defaults with this builder's settings applied.
         */
        public Builder registry(BulkheadRegistry registry) {
            this.registry = registry;
            return this;
        }

        /**
         * Factory of the virtual threads that run tasks. The default names every thread after the bulkhead (one
         * shared name, so starting a thread allocates no name; thread dumps tell virtual threads apart by id). A
         * thread it returns started is taken to run the task already; one that already ended without running it (a
         * used thread) gets the task rejected with a {@code RejectedExecutionException}, as does {@code null}.
         */
        public Builder threadFactory(ThreadFactory threadFactory) {
            this.threadFactory = threadFactory;
            return this;
        }

        /**
         * Wraps each task at submission, on the submitting thread (context propagation, MDC). The wrapper must run
         * the task on the thread it runs on, before it returns: the task's permit goes back when the wrapper returns.
         * A task not completed by then (handed to another thread) has its future failed with an
         * {@code IllegalStateException}; one not started yet never runs. A plain {@code Runnable} given to
         * {@code execute} has no future to fail: handed to another thread, it runs there without a permit.
         */
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
            if (target == null && this.registry != null) {
                target = this.settings.fromRegistry(this.name, this.registry);
            }
            else if (target == null) {
                target = this.settings.newBulkhead(this.name);
            }
            ThreadFactory factory = (this.threadFactory != null) ? this.threadFactory
                    : Thread.ofVirtual().name(this.name).inheritInheritableThreadLocals(false).factory();
            return new BoundedVirtualExecutor(target, factory, this.taskDecorator);
        }
    }
}
