package io.github.loombulkhead.autoconfigure.context;

import java.util.List;
import java.util.function.UnaryOperator;

import org.springframework.core.task.TaskDecorator;

/**
 * Wraps each task of a bulkhead executor, and each asynchronous {@code @Bulkhead} call, on the submitting
 * thread so it runs with the submitter's context: MDC, Micrometer context-propagation thread locals
 * (observations, security context) and the application's {@link TaskDecorator} beans, in that order.
 * Deliberately not a {@link TaskDecorator} bean itself, so Spring Boot's own executors do not pick it up.
 */
public final class BulkheadTaskDecorator implements UnaryOperator<Runnable> {

    private static final BulkheadTaskDecorator NONE = new BulkheadTaskDecorator(List.of());

    private final List<UnaryOperator<Runnable>> decorators;

    private BulkheadTaskDecorator(List<UnaryOperator<Runnable>> decorators) {
        this.decorators = List.copyOf(decorators);
    }

    /** Applies {@code decorators} in order: the first wraps the task, the next wraps the result, and so on. */
    public static BulkheadTaskDecorator of(List<UnaryOperator<Runnable>> decorators) {
        return decorators.isEmpty() ? NONE : new BulkheadTaskDecorator(decorators);
    }

    /** Leaves tasks as they are. */
    public static BulkheadTaskDecorator none() {
        return NONE;
    }

    /** Adapts a Spring {@link TaskDecorator}. */
    public static UnaryOperator<Runnable> from(TaskDecorator taskDecorator) {
        return taskDecorator::decorate;
    }

    @Override
    public Runnable apply(Runnable task) {
        Runnable decorated = task;
        for (UnaryOperator<Runnable> decorator : this.decorators) {
            decorated = decorator.apply(decorated);
        }
        return decorated;
    }

    /** Whether this decorator changes anything. */
    public boolean isEmpty() {
        return this.decorators.isEmpty();
    }
}
