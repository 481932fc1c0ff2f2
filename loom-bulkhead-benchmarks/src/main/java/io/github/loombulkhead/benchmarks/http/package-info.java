/**
 * The HTTP path measured with the variants interleaved in one JVM, so machine drift cancels out.
 */
package io.github.loombulkhead.benchmarks.http;
