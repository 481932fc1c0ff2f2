package io.github.loombulkhead;

/**
 * A task whose future a {@link BoundedVirtualExecutor} created, so the executor can tell it of a
 * rejection, and the task can record its completion before its future completes.
 */
interface OwnTask {

    BoundedVirtualExecutor executor();

    void queuedAs(QueuedTask queued);

    /** Called on the running thread before the task runs. */
    void startedAt(long nanos, int inflight);

    /** Whether the caller, the first to ask, records the completion (and gives the permit back). */
    boolean claimCompletion();

    boolean isDone();

    void reject(RuntimeException rejection);

    void failToStart(Throwable failure);
}
