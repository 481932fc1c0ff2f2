package io.github.loombulkhead.autoconfigure;

import java.util.concurrent.ThreadFactory;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.propagation.ContextPropagatingDecorator;

/**
 * Creates {@link BoundedVirtualExecutor}s wired like the application's other bulkheads: the bulkhead comes
 * from the registry (so {@code loom.bulkhead.instances.<name>}, metrics and the endpoint apply) and tasks
 * carry the submitter's context. The caller owns the executor and shuts it down; an executor declared as a
 * bean is closed with the application context. The starter provides one as a bean; inject it, e.g.
 * {@code @Bean BoundedVirtualExecutor reports(BoundedVirtualExecutors executors) { return executors.create("reports"); }}.
 */
public class BoundedVirtualExecutors {

    private final BulkheadRegistry registry;

    private final ContextPropagatingDecorator taskDecorator;

    /** Executors on the bulkheads of {@code registry} whose tasks are decorated by {@code taskDecorator}. */
    public BoundedVirtualExecutors(BulkheadRegistry registry, ContextPropagatingDecorator taskDecorator) {
        this.registry = registry;
        this.taskDecorator = taskDecorator;
    }

    /** A new executor bounded by the registry's bulkhead called {@code name}, created if it does not exist yet. */
    public BoundedVirtualExecutor create(String name) {
        return create(name, null);
    }

    /**
     * A new executor bounded by the registry's bulkhead called {@code name}, created if it does not exist yet, whose
     * tasks run on threads of {@code threadFactory} ({@code null}: virtual threads named after the bulkhead).
     */
    public BoundedVirtualExecutor create(String name, ThreadFactory threadFactory) {
        BoundedVirtualExecutor.Builder builder = BoundedVirtualExecutor.builder(name).bulkhead(this.registry.bulkhead(name));
        if (threadFactory != null) {
            builder.threadFactory(threadFactory);
        }
        if (!this.taskDecorator.isEmpty()) {
            builder.taskDecorator(this.taskDecorator);
        }
        return builder.build();
    }
}
