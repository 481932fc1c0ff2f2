/**
 * Lets code written against resilience4j's {@code Bulkhead} (decorators, aspects, event consumers) run
 * on a loom-bulkhead engine: one FIFO queue, a queue bound and non-blocking limit changes.
 */
package io.github.loombulkhead.resilience4j;
