/**
 * Adaptive limits: algorithms that learn from finished calls how many calls the callee can take at once and
 * propose a new limit, which the bulkhead applies with {@code changeLimit}.
 */
package io.github.loombulkhead.limit;
