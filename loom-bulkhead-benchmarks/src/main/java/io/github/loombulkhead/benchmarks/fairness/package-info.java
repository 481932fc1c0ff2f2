/**
 * Distribution of wait times when ten times more callers than permits compete for a limiter.
 */
package io.github.loombulkhead.benchmarks.fairness;
