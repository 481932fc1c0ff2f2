package io.github.loombulkhead.autoconfigure;

import io.github.loombulkhead.BulkheadRegistry;

/**
 * Customizes the auto-configured {@link BulkheadRegistry} before it is built, after the
 * {@code loom.bulkhead.*} properties were applied (e.g. a config resolver for computed names). Declare one
 * or more as beans; they are applied in their {@code @Order}. Not used when the application declares its
 * own {@code BulkheadRegistry} bean.
 */
@FunctionalInterface
public interface BulkheadRegistryCustomizer {

    /** Changes {@code builder}, which already holds the defaults and instances from the properties. */
    void customize(BulkheadRegistry.Builder builder);
}
