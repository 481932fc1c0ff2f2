/**
 * The Actuator endpoint {@code bulkheads}: reads every bulkhead's config and state, changes limits at runtime.
 */
package io.github.loombulkhead.autoconfigure.endpoint;
