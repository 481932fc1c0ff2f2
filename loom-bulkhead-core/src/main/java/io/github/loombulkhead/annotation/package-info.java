/**
 * The {@link io.github.loombulkhead.annotation.Bulkhead @Bulkhead} annotation and the Spring AOP
 * advice that bounds annotated beans and HTTP interface clients with named bulkheads.
 */
package io.github.loombulkhead.annotation;
