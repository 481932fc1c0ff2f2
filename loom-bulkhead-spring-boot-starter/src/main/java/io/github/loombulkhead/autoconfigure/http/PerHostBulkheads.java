package io.github.loombulkhead.autoconfigure.http;

import java.util.Set;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;

/**
 * The per-host bulkheads of {@code loom.bulkhead.http.per-host.*}: one interceptor shared by every client,
 * so all clients together respect each host's limit.
 */
public record PerHostBulkheads(BulkheadRegistry registry, String namePrefix, BulkheadConfig template, int maxHosts,
        BulkheadClientHttpRequestInterceptor interceptor) {

    /**
     * Per-host bulkheads in {@code registry}: a host whose bulkhead name has its own entry in
     * {@code configuredNames} (i.e. under {@code loom.bulkhead.instances}) gets the registry's config for it,
     * every other host the template.
     */
    public static PerHostBulkheads of(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts, Set<String> configuredNames) {
        Set<String> configured = Set.copyOf(configuredNames);
        return new PerHostBulkheads(registry, namePrefix, template, maxHosts,
                BulkheadClientHttpRequestInterceptor.perHost(registry, namePrefix,
                        (name) -> configured.contains(name) ? null : template, maxHosts));
    }
}
