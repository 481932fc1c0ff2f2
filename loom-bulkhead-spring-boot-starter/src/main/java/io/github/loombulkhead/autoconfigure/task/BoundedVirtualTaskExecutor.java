package io.github.loombulkhead.autoconfigure.task;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BoundedVirtualExecutor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.TaskRejectedException;
import org.springframework.core.task.support.TaskExecutorAdapter;

/**
 * A Spring {@link org.springframework.core.task.AsyncTaskExecutor} over a {@link BoundedVirtualExecutor}:
 * what {@code @Async} uses when {@code loom.bulkhead.task-execution.enabled=true}. Shuts the executor
 * down with the application context; tasks already accepted still run, and closing the context waits for them
 * at most the given time (Spring Boot's {@code spring.task.execution.shutdown.await-termination-period}).
 */
public class BoundedVirtualTaskExecutor extends TaskExecutorAdapter implements DisposableBean {

    private static final Log logger = LogFactory.getLog(BoundedVirtualTaskExecutor.class);

    private final BoundedVirtualExecutor executor;

    private final Duration awaitTermination;

    /** An executor whose shutdown does not wait for its tasks. */
    public BoundedVirtualTaskExecutor(BoundedVirtualExecutor executor) {
        this(executor, Duration.ZERO);
    }

    /**
     * @param awaitTermination how long closing the context waits for accepted tasks to finish; zero: not at all
     */
    public BoundedVirtualTaskExecutor(BoundedVirtualExecutor executor, Duration awaitTermination) {
        super(executor);
        if (awaitTermination == null || awaitTermination.isNegative()) {
            throw new IllegalArgumentException("awaitTermination must be zero or positive but was " + awaitTermination);
        }
        this.executor = executor;
        this.awaitTermination = awaitTermination;
    }

    /**
     * Runs {@code task} with a future this executor's bulkhead can reject: it waits at most the max wait and then
     * completes exceptionally with the rejection. Spring submits {@code @Async} methods that return a
     * {@code CompletableFuture} this way; through the adapter they would be plain tasks that are never timed out.
     * The task decorator that applies is the executor's ({@code BoundedVirtualExecutor.builder(..).taskDecorator},
     * where the starter puts context propagation); one set with {@link #setTaskDecorator} decorates
     * {@code execute} and {@code submit(Callable)} only.
     */
    @Override
    public <T> CompletableFuture<T> submitCompletable(Callable<T> task) {
        return this.executor.supplyAsync(() -> {
            try {
                return task.call();
            }
            catch (RuntimeException ex) {
                throw ex;
            }
            catch (Exception ex) {
                throw new CompletionException(ex);
            }
        });
    }

    /**
     * Runs {@code task} refused only at once (a full queue, a shut-down executor: a {@code TaskRejectedException}),
     * never timed out once accepted ({@link BoundedVirtualExecutor#submitWithoutTimeout}); cancelling the future while
     * the task waits frees its queue slot. Spring MVC submits {@code Callable} controller methods this way and reads
     * the future only to cancel it at its own async timeout: a rejection through it after the max wait would leave
     * the request unanswered until that timeout, and the method would never run. A task with a result
     * ({@link #submit(Callable)}, {@code @Async} methods) keeps the future that the max wait can fail.
     */
    @Override
    public Future<?> submit(Runnable task) {
        try {
            return this.executor.submitWithoutTimeout(task);
        }
        catch (RejectedExecutionException ex) {
            throw new TaskRejectedException(ex.getMessage(), ex);
        }
    }

    /** Like {@link #submitCompletable(Callable)} for a task without a result. */
    @Override
    public CompletableFuture<Void> submitCompletable(Runnable task) {
        return this.executor.runAsync(task);
    }

    /** The executor doing the work, with its bulkhead. */
    public BoundedVirtualExecutor getExecutor() {
        return this.executor;
    }

    @Override
    public void destroy() {
        this.executor.shutdown();
        if (this.awaitTermination.isZero()) {
            return;
        }
        try {
            if (!this.executor.awaitTermination(this.awaitTermination.toNanos(), TimeUnit.NANOSECONDS)) {
                logger.warn("Tasks of '" + this.executor.getBulkhead().getName() + "' were still running "
                        + this.awaitTermination + " after shutdown (spring.task.execution.shutdown."
                        + "await-termination-period); they keep running");
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
