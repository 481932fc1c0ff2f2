package io.github.loombulkhead.autoconfigure.task;

import io.github.loombulkhead.BoundedVirtualExecutor;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.task.support.TaskExecutorAdapter;

/**
 * A Spring {@link org.springframework.core.task.AsyncTaskExecutor} over a {@link BoundedVirtualExecutor}:
 * what {@code @Async} uses when {@code loom.bulkhead.task-execution.enabled=true}. Shuts the executor
 * down with the application context; tasks already accepted still run.
 */
public class BoundedVirtualTaskExecutor extends TaskExecutorAdapter implements DisposableBean {

    private final BoundedVirtualExecutor executor;

    public BoundedVirtualTaskExecutor(BoundedVirtualExecutor executor) {
        super(executor);
        this.executor = executor;
    }

    /** The executor doing the work, with its bulkhead. */
    public BoundedVirtualExecutor getExecutor() {
        return this.executor;
    }

    @Override
    public void destroy() {
        this.executor.shutdown();
    }
}
