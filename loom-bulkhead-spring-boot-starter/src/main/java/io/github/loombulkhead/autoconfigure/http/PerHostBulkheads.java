package io.github.loombulkhead.autoconfigure.http;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;

/**
 * The per-host bulkheads of {@code loom.bulkhead.http.per-host.*}: one interceptor shared by every client,
 * so all clients together respect each host's limit.
 */
public record PerHostBulkheads(BulkheadRegistry registry, String namePrefix, BulkheadConfig template, int maxHosts,
        BulkheadClientHttpRequestInterceptor interceptor) {

    /** Per-host bulkheads in {@code registry}. */
    public static PerHostBulkheads of(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts) {
        return new PerHostBulkheads(registry, namePrefix, template, maxHosts,
                BulkheadClientHttpRequestInterceptor.perHost(registry, namePrefix, template, maxHosts));
    }
}
