package io.github.loombulkhead.autoconfigure.propagation;

import java.util.function.UnaryOperator;

import io.micrometer.context.ContextSnapshotFactory;

/**
 * Captures every thread local known to Micrometer's context-propagation registry (current observation,
 * security context, ...) at submission and restores it around the task.
 */
final class ContextSnapshotPropagation implements UnaryOperator<Runnable> {

    private final ContextSnapshotFactory factory;

    ContextSnapshotPropagation(ContextSnapshotFactory factory) {
        this.factory = factory;
    }

    @Override
    public Runnable apply(Runnable task) {
        return this.factory.captureAll().wrap(task);
    }
}
