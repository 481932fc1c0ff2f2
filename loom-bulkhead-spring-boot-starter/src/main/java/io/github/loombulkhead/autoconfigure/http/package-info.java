/**
 * Bulkheads on RestClients without code: per HTTP service group, per target host, and a connection pool sized
 * from the bulkhead limits.
 */
package io.github.loombulkhead.autoconfigure.http;
