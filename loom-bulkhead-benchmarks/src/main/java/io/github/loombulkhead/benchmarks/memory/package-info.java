/**
 * Heap retained per task that waits for a permit, measured with {@code MemoryMXBean} after full GCs.
 */
package io.github.loombulkhead.benchmarks.memory;
