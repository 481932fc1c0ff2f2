/**
 * Bulkheads for virtual threads: a named limit with a thread-less wait queue, and an executor that
 * starts a new virtual thread per task only when the limit allows.
 */
package io.github.loombulkhead;
