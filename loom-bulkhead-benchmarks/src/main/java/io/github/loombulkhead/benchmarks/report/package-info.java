/**
 * Turns JMH's result JSON and the harness results into the Markdown tables of {@code docs/benchmarks.md}.
 */
package io.github.loombulkhead.benchmarks.report;
