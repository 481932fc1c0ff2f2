/**
 * A sample application that reproduces the thread pool vs virtual threads vs bounded virtual threads
 * comparison: one jar that plays the slow callee or the caller, runs every mode and reports the results.
 */
@NullMarked
package io.github.loombulkhead.sample;

import org.jspecify.annotations.NullMarked;
