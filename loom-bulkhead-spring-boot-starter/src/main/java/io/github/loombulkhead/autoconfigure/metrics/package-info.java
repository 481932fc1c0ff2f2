/**
 * Micrometer meters {@code loom.bulkhead.*} for every bulkhead of the registry.
 */
package io.github.loombulkhead.autoconfigure.metrics;
