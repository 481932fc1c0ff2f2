/**
 * Spring Boot auto-configuration of loom-bulkhead: bulkheads from {@code loom.bulkhead.*} properties,
 * active when the application runs on virtual threads.
 */
package io.github.loombulkhead.autoconfigure;
