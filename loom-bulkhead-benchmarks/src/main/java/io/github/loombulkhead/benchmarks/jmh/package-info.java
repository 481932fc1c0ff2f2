/**
 * JMH benchmarks: burst throughput, uncontended overhead and the HTTP path, each with every alternative in one run.
 */
package io.github.loombulkhead.benchmarks.jmh;
