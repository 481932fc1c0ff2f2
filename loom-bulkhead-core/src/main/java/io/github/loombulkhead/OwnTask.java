package io.github.loombulkhead;

import java.lang.invoke.VarHandle;

/**
 * A task whose future a {@link BoundedVirtualExecutor} created, so the executor can tell it of a
 * rejection, and the task can record its completion before its future completes.
 */
interface OwnTask {

    /** The value of a task's in-flight field once its completion was claimed. */
    int CLAIMED = Integer.MIN_VALUE;

    BoundedVirtualExecutor executor();

    void queuedAs(QueuedTask queued);

    /** Whether the queue times it out after the max wait; a task whose caller may never read its future is not. */
    default boolean expires() {
        return true;
    }

    /** Called on the running thread before the task runs. */
    void startedAt(long nanos, int inflight);

    /**
     * Whether the caller, the first to ask, records the completion (and gives the permit back). Atomic: the thread
     * that ran the task and a task decorator's thread may ask at once.
     */
    boolean claimCompletion();

    /** Claims the completion of {@code task} through {@code inflight}, the handle of its in-flight field. */
    static boolean claim(VarHandle inflight, OwnTask task) {
        for (;;) {
            int seen = (int) inflight.getVolatile(task);
            if (seen == CLAIMED) {
                return false;
            }
            if (inflight.compareAndSet(task, seen, CLAIMED)) {
                return true;
            }
        }
    }

    boolean isDone();

    void reject(RuntimeException rejection);

    void failToStart(Throwable failure);
}
