/** Cluster permits through Redis: added latency against a local bulkhead and permits per second, with Redisson as baseline. */
package io.github.loombulkhead.benchmarks.cluster;
