/**
 * JMH benchmarks and measurement harnesses that compare loom-bulkhead with the alternatives in one run.
 */
package io.github.loombulkhead.benchmarks;
