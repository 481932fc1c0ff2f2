package io.github.loombulkhead.autoconfigure;

import io.github.loombulkhead.BulkheadRegistry;

/**
 * Customizes the auto-configured {@link BulkheadRegistry} before it is built, after the
 * {@code loom.bulkhead.*} properties were applied (e.g. a config resolver for computed names).
 */
@FunctionalInterface
public interface BulkheadRegistryCustomizer {

    void customize(BulkheadRegistry.Builder builder);
}
