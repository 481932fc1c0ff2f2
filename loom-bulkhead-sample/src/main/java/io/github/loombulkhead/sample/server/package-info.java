/**
 * The server comparison: front servers on platform threads, virtual threads and bulkheads, driven by ab.
 */
package io.github.loombulkhead.sample.server;
