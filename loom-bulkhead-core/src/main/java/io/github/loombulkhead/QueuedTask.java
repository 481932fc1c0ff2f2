package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.util.concurrent.Future;

/** A task of a {@link BoundedVirtualExecutor} waiting for a permit, as submitted. */
class QueuedTask extends Waiter {

    private static final System.Logger logger = System.getLogger(BoundedVirtualExecutor.class.getName());

    private final BoundedVirtualExecutor executor;

    private final Runnable submitted;

    /** A waiting task; only one whose future the executor created expires (it can be told). */
    QueuedTask(BoundedVirtualExecutor executor, Runnable submitted, boolean expires) {
        super(expires);
        this.executor = executor;
        this.submitted = submitted;
    }

    /** A queued task that runs {@code decorated} (what the task decorator made of {@code submitted}). */
    static QueuedTask of(BoundedVirtualExecutor executor, Runnable decorated, Runnable submitted, boolean expires) {
        return (decorated == submitted) ? new QueuedTask(executor, submitted, expires)
                : new Decorated(executor, decorated, submitted, expires);
    }

    BoundedVirtualExecutor owner() {
        return this.executor;
    }

    /** The task as submitted. */
    Runnable submitted() {
        return this.submitted;
    }

    /** The task to run: what the task decorator made of the submitted one, or that one itself. */
    Runnable decorated() {
        return this.submitted;
    }

    @Override
    protected boolean onPermit(long waitNanos) {
        Runnable submitted = submitted();
        if (submitted instanceof Future<?> future && future.isDone()) {
            // Cancelled while the permit was on its way: no thread for a task that will not run.
            this.executor.taskEnded();
            return false;
        }
        try {
            this.executor.start(decorated(), submitted);
            return true;
        }
        catch (RuntimeException | Error ex) {
            String bulkhead = this.executor.getBulkhead().getName();
            if (submitted instanceof OwnTask own) {
                own.failToStart(ex);
                logger.log(Level.ERROR, "Bulkhead '" + bulkhead + "' could not start a task; its future failed", ex);
            }
            else {
                // Accepted by execute(), it has nobody to be told: the log names it.
                logger.log(Level.ERROR, "Bulkhead '" + bulkhead + "' could not start task " + submitted
                        + ", which did not run", ex);
            }
            this.executor.taskEnded();
            return false;
        }
    }

    /** Only a task whose future the executor created: a foreign one waits until it runs or is handed back. */
    @Override
    boolean canBeRejected() {
        return expires() && submitted() instanceof OwnTask;
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        try {
            if (submitted() instanceof OwnTask own && expires()) {
                own.reject(rejection);
            }
            else {
                // Foreign tasks never expire, and an external limit leaves them queued: not reached.
                logger.log(Level.WARNING, rejection.getMessage() + "; task " + submitted() + " did not run");
            }
        }
        finally {
            this.executor.taskEnded();
        }
    }

    /** A waiting task that the task decorator wrapped: the wrapper runs, the submitted task is what it wraps. */
    private static final class Decorated extends QueuedTask {

        private final Runnable decorated;

        Decorated(BoundedVirtualExecutor executor, Runnable decorated, Runnable submitted, boolean expires) {
            super(executor, submitted, expires);
            this.decorated = decorated;
        }

        @Override
        Runnable decorated() {
            return this.decorated;
        }
    }
}
