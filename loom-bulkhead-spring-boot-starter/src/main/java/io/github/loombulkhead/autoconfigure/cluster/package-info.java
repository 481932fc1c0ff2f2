/** Auto-configuration of cluster-wide limits: bulkheads whose permits are leased from Redis, their metrics and endpoint. */
package io.github.loombulkhead.autoconfigure.cluster;
