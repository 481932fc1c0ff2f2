/**
 * Adaptive limits: algorithms that learn from finished calls how many calls the callee can take at once and
 * propose a new limit, which the bulkhead applies as {@code changeLimit} does: decreases at once, rises spread over
 * half a round trip by a {@link io.github.loombulkhead.limit.LimitRamp}.
 */
package io.github.loombulkhead.limit;
