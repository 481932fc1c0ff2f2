/**
 * Starting processes the comparison needs: JVMs of this same application (the callee, the caller replicas, the
 * caller again with native memory tracking on when it was started without it) and a local redis-server.
 */
@NullMarked
package io.github.loombulkhead.sample.launch;

import org.jspecify.annotations.NullMarked;
