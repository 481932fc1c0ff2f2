/**
 * What the comparison measures in the caller JVM: call outcomes and latencies, threads, heap, GC,
 * native thread-stack memory, and their time series.
 */
@NullMarked
package io.github.loombulkhead.sample.measure;

import org.jspecify.annotations.NullMarked;
