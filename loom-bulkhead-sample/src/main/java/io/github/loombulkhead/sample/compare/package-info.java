/**
 * The comparison: runs each mode against the callee, measures it in this JVM, and reports the results on
 * the console and in report files.
 */
@NullMarked
package io.github.loombulkhead.sample.compare;

import org.jspecify.annotations.NullMarked;
