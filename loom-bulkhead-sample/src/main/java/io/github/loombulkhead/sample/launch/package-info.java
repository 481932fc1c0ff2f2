/**
 * Starting JVMs of this same application: the callee in its own process, and the caller again with
 * native memory tracking on when it was started without it.
 */
@NullMarked
package io.github.loombulkhead.sample.launch;

import org.jspecify.annotations.NullMarked;
