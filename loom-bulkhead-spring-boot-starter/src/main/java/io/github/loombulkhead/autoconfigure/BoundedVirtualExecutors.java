package io.github.loombulkhead.autoconfigure;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.context.BulkheadTaskDecorator;

/**
 * Creates {@link BoundedVirtualExecutor}s wired like the application's other bulkheads: the bulkhead comes
 * from the registry (so {@code loom.bulkhead.instances.<name>}, metrics and the endpoint apply) and tasks
 * carry the submitter's context. The caller owns the executor and shuts it down.
 */
public class BoundedVirtualExecutors {

    private final BulkheadRegistry registry;

    private final BulkheadTaskDecorator taskDecorator;

    public BoundedVirtualExecutors(BulkheadRegistry registry, BulkheadTaskDecorator taskDecorator) {
        this.registry = registry;
        this.taskDecorator = taskDecorator;
    }

    /** An executor bounded by the registry's bulkhead called {@code name}. */
    public BoundedVirtualExecutor create(String name) {
        BoundedVirtualExecutor.Builder builder = BoundedVirtualExecutor.builder(name).bulkhead(this.registry.bulkhead(name));
        if (!this.taskDecorator.isEmpty()) {
            builder.taskDecorator(this.taskDecorator);
        }
        return builder.build();
    }
}
