package io.github.loombulkhead.autoconfigure.context;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

import io.micrometer.context.ContextSnapshotFactory;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.task.TaskDecorator;
import org.springframework.util.ClassUtils;

/**
 * Builds the {@link BulkheadTaskDecorator} from what the application has: SLF4J's MDC, Micrometer
 * context-propagation (a {@link ContextSnapshotFactory} bean or the global registry) and
 * {@link TaskDecorator} beans. Optional libraries are only touched when present.
 */
public final class BulkheadTaskDecorators {

    private static final boolean SLF4J_PRESENT = ClassUtils.isPresent("org.slf4j.MDC",
            BulkheadTaskDecorators.class.getClassLoader());

    private static final boolean CONTEXT_PROPAGATION_PRESENT = ClassUtils.isPresent(
            "io.micrometer.context.ContextSnapshotFactory", BulkheadTaskDecorators.class.getClassLoader());

    private BulkheadTaskDecorators() {
    }

    /** The decorator for an application context. */
    public static BulkheadTaskDecorator create(BeanFactory beanFactory, ObjectProvider<TaskDecorator> taskDecorators) {
        List<UnaryOperator<Runnable>> decorators = new ArrayList<>();
        if (SLF4J_PRESENT) {
            decorators.add(new MdcTaskDecorator());
        }
        if (CONTEXT_PROPAGATION_PRESENT) {
            decorators.add(ContextSnapshots.decorator(beanFactory));
        }
        taskDecorators.orderedStream().map(BulkheadTaskDecorator::from).forEach(decorators::add);
        return BulkheadTaskDecorator.of(decorators);
    }

    /** Keeps context-propagation types out of {@link BulkheadTaskDecorators} so it loads without them. */
    private static final class ContextSnapshots {

        static UnaryOperator<Runnable> decorator(BeanFactory beanFactory) {
            ContextSnapshotFactory factory = beanFactory.getBeanProvider(ContextSnapshotFactory.class)
                .getIfAvailable(() -> ContextSnapshotFactory.builder().build());
            return new ContextSnapshotTaskDecorator(factory);
        }
    }
}
