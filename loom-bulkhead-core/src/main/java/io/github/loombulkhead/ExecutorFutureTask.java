package io.github.loombulkhead;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * The future of a task submitted to a {@link BoundedVirtualExecutor}: cancelling it while it waits
 * takes it out of the queue; its completion is recorded before it completes.
 */
class ExecutorFutureTask<V> extends FutureTask<V> implements OwnTask {

    /** {@link #inflight}, {@link OwnTask#CLAIMED} once the completion was claimed. */
    private static final VarHandle INFLIGHT;

    static {
        try {
            INFLIGHT = MethodHandles.lookup().findVarHandle(ExecutorFutureTask.class, "inflight", int.class);
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final BoundedVirtualExecutor executor;

    private volatile QueuedTask queued;

    /** Set before it is submitted: never timed out (see {@link BoundedVirtualExecutor#submitWithoutTimeout}). */
    private boolean lasting;

    /** Written and read on the thread that runs the task; 0 until it runs. */
    private long startedAt;

    private int inflight;

    ExecutorFutureTask(BoundedVirtualExecutor executor, Callable<V> callable) {
        super(callable);
        this.executor = executor;
    }

    ExecutorFutureTask(BoundedVirtualExecutor executor, Runnable runnable, V result) {
        super(runnable, result);
        this.executor = executor;
    }

    @Override
    public void run() {
        if (this.startedAt == 0) {
            // Not started as this executor's task: run by a foreign future of its own (an ExecutorCompletionService's)
            // on a task thread, whose sample and permit this task takes over.
            TaskThreads.adopt(this);
        }
        super.run();
    }

    @Override
    public BoundedVirtualExecutor executor() {
        return this.executor;
    }

    @Override
    public void queuedAs(QueuedTask queued) {
        this.queued = queued;
    }

    /** Before it is submitted: the queue never times it out. */
    void withoutTimeout() {
        this.lasting = true;
    }

    @Override
    public boolean expires() {
        return !this.lasting;
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
        super.setException(rejection);
    }

    @Override
    public void failToStart(Throwable failure) {
        super.setException(failure);
    }

    @Override
    protected void set(V value) {
        recordCompletion(null);
        super.set(value);
    }

    @Override
    protected void setException(Throwable failure) {
        recordCompletion(failure);
        super.setException(failure);
    }

    /** Called on the running thread: the completion is counted before the future completes. */
    private void recordCompletion(Throwable failure) {
        int inflightAtStart = this.inflight;
        if (this.startedAt != 0 && claimCompletion()) {
            this.executor.completed(this.startedAt, inflightAtStart, failure, isCancelled());
        }
    }

    @Override
    protected void done() {
        QueuedTask waiting = this.queued;
        if (isCancelled() && waiting != null && this.executor.getBulkhead().withdraw(waiting)) {
            this.executor.taskEnded();
        }
    }

    /** A task of {@code invokeAny}: also reports to the queue where invokeAny collects finished tasks. */
    static final class Collected<V> extends ExecutorFutureTask<V> {

        private final BlockingQueue<Future<V>> completions;

        Collected(BoundedVirtualExecutor executor, Callable<V> callable, BlockingQueue<Future<V>> completions) {
            super(executor, callable);
            this.completions = completions;
        }

        @Override
        protected void done() {
            super.done();
            this.completions.add(this);
        }
    }
}
