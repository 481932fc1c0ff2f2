package io.github.loombulkhead.sample.mode;

import java.util.OptionalInt;

import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * {@code spring-concurrency-limit}: Spring's {@link SimpleAsyncTaskExecutor} on virtual threads with
 * {@code concurrencyLimit = limit}. At the limit, {@code execute} blocks the submitting thread until a task
 * ends, so waiting work stays with the submitter rather than in a queue.
 */
final class SpringConcurrencyLimitStrategy implements ConcurrencyStrategy {

    private final SimpleAsyncTaskExecutor executor;

    SpringConcurrencyLimitStrategy(int limit) {
        this.executor = new SimpleAsyncTaskExecutor("spring-concurrency-limit-");
        this.executor.setVirtualThreads(true);
        this.executor.setConcurrencyLimit(limit);
        this.executor.setTaskTerminationTimeout(10_000);
    }

    @Override
    public OptionalInt limit() {
        return OptionalInt.of(this.executor.getConcurrencyLimit());
    }

    @Override
    public SimpleAsyncTaskExecutor executor() {
        return this.executor;
    }

    @Override
    public void close() {
        this.executor.close();
    }
}
