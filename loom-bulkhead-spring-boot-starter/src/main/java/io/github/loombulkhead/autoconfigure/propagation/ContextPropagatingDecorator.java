package io.github.loombulkhead.autoconfigure.propagation;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import io.micrometer.context.ContextSnapshotFactory;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.task.TaskDecorator;
import org.springframework.util.ClassUtils;

/**
 * Wraps each task of a bulkhead executor, and each asynchronous {@code @Bulkhead} call, on the submitting
 * thread so it runs with the submitter's context: MDC, Micrometer context-propagation thread locals
 * (observations, security context) and the application's {@link TaskDecorator} beans. The beans wrap the task
 * innermost: they run after the MDC and the thread locals are in place, so what they set (an MDC entry of their own)
 * stays, as with Spring Boot's executors, which apply only them.
 * Deliberately not a {@link TaskDecorator} bean itself, so Spring Boot's own executors do not pick it up.
 */
public final class ContextPropagatingDecorator implements UnaryOperator<Runnable> {

    private static final ContextPropagatingDecorator NONE = new ContextPropagatingDecorator(List.of());

    private static final boolean SLF4J_PRESENT = ClassUtils.isPresent("org.slf4j.MDC",
            ContextPropagatingDecorator.class.getClassLoader());

    private static final boolean CONTEXT_PROPAGATION_PRESENT = ClassUtils.isPresent(
            "io.micrometer.context.ContextSnapshotFactory", ContextPropagatingDecorator.class.getClassLoader());

    private final List<UnaryOperator<Runnable>> decorators;

    private ContextPropagatingDecorator(List<UnaryOperator<Runnable>> decorators) {
        this.decorators = List.copyOf(decorators);
    }

    /**
     * The decorator for an application context, from what it has: SLF4J's MDC, Micrometer context-propagation
     * (a {@link ContextSnapshotFactory} bean or the global registry) and {@link TaskDecorator} beans. Optional
     * libraries are only touched when present.
     */
    public static ContextPropagatingDecorator create(BeanFactory beanFactory,
            ObjectProvider<TaskDecorator> taskDecorators) {
        // The first wraps the task: the application's decorators run last, inside the restored MDC and thread locals.
        List<UnaryOperator<Runnable>> decorators = new ArrayList<>();
        taskDecorators.orderedStream().map(ContextPropagatingDecorator::from).forEach(decorators::add);
        if (SLF4J_PRESENT) {
            decorators.add(new MdcPropagation());
        }
        if (CONTEXT_PROPAGATION_PRESENT) {
            decorators.add(ContextSnapshots.propagation(beanFactory));
        }
        return of(decorators);
    }

    /** Applies {@code decorators} in order: the first wraps the task, the next wraps the result, and so on. */
    public static ContextPropagatingDecorator of(List<UnaryOperator<Runnable>> decorators) {
        return decorators.isEmpty() ? NONE : new ContextPropagatingDecorator(decorators);
    }

    /** Leaves tasks as they are. */
    public static ContextPropagatingDecorator none() {
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

    /** Keeps context-propagation types out of {@link ContextPropagatingDecorator} so it loads without them. */
    private static final class ContextSnapshots {

        static UnaryOperator<Runnable> propagation(BeanFactory beanFactory) {
            ContextSnapshotFactory factory = beanFactory.getBeanProvider(ContextSnapshotFactory.class)
                .getIfAvailable(() -> ContextSnapshotFactory.builder().build());
            return new ContextSnapshotPropagation(factory);
        }
    }
}
