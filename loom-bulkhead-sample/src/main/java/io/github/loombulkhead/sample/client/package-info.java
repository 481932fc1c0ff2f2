/**
 * The caller's HTTP side: HTTP interface clients of the callee on a RestClient over Apache HttpClient 5,
 * configured like the reference, one of them bounded by {@code @Bulkhead}.
 */
@NullMarked
package io.github.loombulkhead.sample.client;

import org.jspecify.annotations.NullMarked;
