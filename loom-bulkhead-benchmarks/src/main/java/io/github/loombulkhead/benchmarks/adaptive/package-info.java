/**
 * Adaptive-limit algorithms (loom-bulkhead's, Netflix concurrency-limits' and Envoy's gradient formula) against a
 * queueing model of a callee, in virtual time.
 */
package io.github.loombulkhead.benchmarks.adaptive;
