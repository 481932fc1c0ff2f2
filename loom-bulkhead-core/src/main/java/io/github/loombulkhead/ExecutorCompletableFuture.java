package io.github.loombulkhead;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The future of {@link BoundedVirtualExecutor#supplyAsync}: it runs as the task, completes after its
 * permit is given back (the dependent stages it runs then do not count as holding it, see {@link CallChain}),
 * and cancelling it while it waits takes it out of the queue; so does completing it from outside ({@code orTimeout},
 * {@code completeOnTimeout}, {@code complete}, {@code completeExceptionally}): its task will never run.
 */
final class ExecutorCompletableFuture<T> extends CompletableFuture<T> implements Runnable, OwnTask {

    /** {@link #inflight}, {@link OwnTask#CLAIMED} once the completion was claimed. */
    private static final VarHandle INFLIGHT;

    static {
        try {
            INFLIGHT = MethodHandles.lookup().findVarHandle(ExecutorCompletableFuture.class, "inflight", int.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final BoundedVirtualExecutor executor;

    private final Supplier<T> supplier;

    private volatile QueuedTask queued;

    private long startedAt;

    private int inflight;

    ExecutorCompletableFuture(BoundedVirtualExecutor executor, Supplier<T> supplier) {
        this.executor = executor;
        this.supplier = supplier;
    }

    @Override
    public void run() {
        if (isDone()) {
            return;
        }
        T value;
        try {
            value = this.supplier.get();
        }
        catch (Throwable ex) {
            recordCompletion(ex);
            try (CallChain.Scope released = CallChain.released(this.executor.getBulkhead())) {
                super.completeExceptionally(ex);
            }
            return;
        }
        recordCompletion(null);
        // The stages that depend on this future run here, after the permit went back: not under it.
        try (CallChain.Scope released = CallChain.released(this.executor.getBulkhead())) {
            super.complete(value);
        }
    }

    private void recordCompletion(Throwable failure) {
        int inflightAtStart = this.inflight;
        if (claimCompletion()) {
            this.executor.completed(this.startedAt, inflightAtStart, failure, isCancelled());
        }
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return leaveQueueIf(super.cancel(mayInterruptIfRunning));
    }

    /** Completed by its caller, not by its task (which completes through {@code super}). */
    @Override
    public boolean complete(T value) {
        return leaveQueueIf(super.complete(value));
    }

    /** Completed by its caller ({@code orTimeout} included), not by its task (which completes through {@code super}). */
    @Override
    public boolean completeExceptionally(Throwable failure) {
        return leaveQueueIf(super.completeExceptionally(failure));
    }

    /**
     * {@code completedNow}: cancelled or completed from outside just now. A task still waiting then will never run:
     * its queue slot is free.
     */
    private boolean leaveQueueIf(boolean completedNow) {
        QueuedTask waiting = this.queued;
        if (completedNow && waiting != null && this.executor.getBulkhead().withdraw(waiting)) {
            this.executor.taskEnded();
        }
        return completedNow;
    }

    @Override
    public BoundedVirtualExecutor executor() {
        return this.executor;
    }

    @Override
    public void queuedAs(QueuedTask queued) {
        this.queued = queued;
    }

    @Override
    public void startedAt(long nanos, int inflight) {
        this.startedAt = nanos;
        this.inflight = inflight;
    }

    @Override
    public boolean claimCompletion() {
        return OwnTask.claim(INFLIGHT, this);
    }

    @Override
    public void reject(RuntimeException rejection) {
        // Out of the queue already.
        super.completeExceptionally(rejection);
    }

    @Override
    public void failToStart(Throwable failure) {
        super.completeExceptionally(failure);
    }
}
