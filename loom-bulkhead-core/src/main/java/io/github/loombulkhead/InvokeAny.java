package io.github.loombulkhead;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link BoundedVirtualExecutor#invokeAny}: submits every task at once; each one the executor refuses,
 * at once or after waiting, counts as a failed task, so the call ends with {@link ExecutionException}
 * when all of them failed. As {@code ExecutorService} says, it throws {@link RejectedExecutionException}
 * when the tasks cannot be scheduled: the executor is shut down, or refused every one at once. The tasks
 * still running when it returns are cancelled.
 */
final class InvokeAny {

    private InvokeAny() {
    }

    static <T> T invokeAny(BoundedVirtualExecutor executor, Collection<? extends Callable<T>> tasks, boolean timed,
            long nanos) throws InterruptedException, ExecutionException, TimeoutException {
        if (tasks.isEmpty()) {
            throw new IllegalArgumentException("invokeAny needs at least one task");
        }
        long deadline = System.nanoTime() + nanos;
        BlockingQueue<Future<T>> done = new LinkedBlockingQueue<>();
        List<ExecutorFutureTask<T>> futures = new ArrayList<>(tasks.size());
        try {
            RejectedExecutionException firstRefusal = null;
            int refused = 0;
            for (Callable<T> task : tasks) {
                ExecutorFutureTask<T> future = new ExecutorFutureTask.Collected<>(executor,
                        Objects.requireNonNull(task, "task must not be null"), done);
                futures.add(future);
                try {
                    executor.execute(future);
                }
                catch (RejectedExecutionException ex) {
                    if (executor.isShutdown()) {
                        // None of them can ever run; those submitted already are cancelled below.
                        throw ex;
                    }
                    firstRefusal = (firstRefusal != null) ? firstRefusal : ex;
                    refused++;
                    future.reject(ex);
                }
            }
            if (refused == futures.size()) {
                throw firstRefusal;
            }
            ExecutionException last = null;
            for (int pending = futures.size(); pending > 0; pending--) {
                Future<T> next = timed ? done.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS) : done.take();
                if (next == null) {
                    throw new TimeoutException("none of " + futures.size() + " tasks completed in time");
                }
                try {
                    return next.get();
                }
                catch (ExecutionException ex) {
                    last = ex;
                }
                catch (CancellationException ex) {
                    last = new ExecutionException(ex);
                }
            }
            throw last;
        }
        finally {
            for (ExecutorFutureTask<T> future : futures) {
                future.cancel(true);
            }
        }
    }
}
