package io.github.loombulkhead;

import java.lang.System.Logger.Level;
import java.util.concurrent.Future;

/** A task of a {@link BoundedVirtualExecutor} waiting for a permit, as submitted. */
class QueuedTask extends Waiter {

    private static final System.Logger logger = System.getLogger(BoundedVirtualExecutor.class.getName());

    private final BoundedVirtualExecutor executor;

    private final Runnable command;

    /** A waiting task; only one whose future the executor created expires (it can be told). */
    QueuedTask(BoundedVirtualExecutor executor, Runnable command, boolean expires) {
        super(expires);
        this.executor = executor;
        this.command = command;
    }

    /** A queued task that runs {@code task} (what the task decorator made of it) for {@code command}. */
    static QueuedTask of(BoundedVirtualExecutor executor, Runnable task, Runnable command, boolean expires) {
        return (task == command) ? new QueuedTask(executor, command, expires)
                : new Decorated(executor, task, command, expires);
    }

    BoundedVirtualExecutor owner() {
        return this.executor;
    }

    /** The task as submitted. */
    Runnable command() {
        return this.command;
    }

    /** The task to run: the command, or what the task decorator made of it. */
    Runnable task() {
        return this.command;
    }

    @Override
    protected boolean onPermit(long waitNanos) {
        Runnable command = command();
        if (command instanceof Future<?> future && future.isDone()) {
            // Cancelled while the permit was on its way: no thread for a task that will not run.
            this.executor.taskEnded();
            return false;
        }
        try {
            this.executor.start(task(), command);
            return true;
        }
        catch (RuntimeException | Error ex) {
            if (command instanceof OwnTask own && expires()) {
                own.failToStart(ex);
            }
            logger.log(Level.ERROR, "Bulkhead '" + this.executor.getBulkhead().getName() + "' could not start a task",
                    ex);
            this.executor.taskEnded();
            return false;
        }
    }

    @Override
    protected void onReject(BulkheadRejectedException rejection) {
        try {
            if (command() instanceof OwnTask own && expires()) {
                own.reject(rejection);
            }
            else {
                // Foreign tasks never expire; nothing else rejects a queued task.
                logger.log(Level.WARNING, rejection.getMessage() + "; task " + command() + " did not run");
            }
        }
        finally {
            this.executor.taskEnded();
        }
    }

    /** A waiting task that the task decorator wrapped: the wrapper runs, the command is what was submitted. */
    private static final class Decorated extends QueuedTask {

        private final Runnable task;

        Decorated(BoundedVirtualExecutor executor, Runnable task, Runnable command, boolean expires) {
            super(executor, command, expires);
            this.task = task;
        }

        @Override
        Runnable task() {
            return this.task;
        }
    }
}
