/** Cluster-wide bulkhead limits: permits leased from Redis and shared by every process that uses a bulkhead's name. */
package io.github.loombulkhead.redis;
