package io.github.loombulkhead;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The future of {@link BoundedVirtualExecutor#supplyAsync}: it runs as the task, completes after its
 * permit is given back (the dependent stages it runs then do not count as holding it, see {@link CallChain}),
 * and cancelling it while it waits takes it out of the queue.
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
                completeExceptionally(ex);
            }
            return;
        }
        recordCompletion(null);
        // The stages that depend on this future run here, after the permit went back: not under it.
        try (CallChain.Scope released = CallChain.released(this.executor.getBulkhead())) {
            complete(value);
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
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        QueuedTask waiting = this.queued;
        if (cancelled && waiting != null && this.executor.getBulkhead().withdraw(waiting)) {
            this.executor.taskEnded();
        }
        return cancelled;
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
        completeExceptionally(rejection);
    }

    @Override
    public void failToStart(Throwable failure) {
        completeExceptionally(failure);
    }
}
