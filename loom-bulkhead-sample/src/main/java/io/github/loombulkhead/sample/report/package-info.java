/**
 * The comparison's report: the {@code report.json} contract as records, and its Markdown, HTML and
 * console renderings.
 */
@NullMarked
package io.github.loombulkhead.sample.report;

import org.jspecify.annotations.NullMarked;
