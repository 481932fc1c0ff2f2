/**
 * The inbound bulkhead of servlet applications: requests hold permits, and requests that wait hold no thread.
 */
package io.github.loombulkhead.autoconfigure.server;
