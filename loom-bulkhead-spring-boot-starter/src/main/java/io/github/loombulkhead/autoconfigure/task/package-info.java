/**
 * A bounded {@code applicationTaskExecutor} for {@code @Async}, backed by a BoundedVirtualExecutor.
 */
package io.github.loombulkhead.autoconfigure.task;
