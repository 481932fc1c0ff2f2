/**
 * The callee role: a slow endpoint on Tomcat with a bounded number of platform worker threads, as in the
 * reference experiment, plus a status endpoint the caller uses to wait until it is idle and a capacity endpoint
 * that changes the number of workers over a mode.
 */
@NullMarked
package io.github.loombulkhead.sample.callee;

import org.jspecify.annotations.NullMarked;
