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

    /**
     * Per-host bulkheads in {@code registry}: a host whose bulkhead name has a config of its own in the registry
     * (an entry under {@code loom.bulkhead.instances}, or one a {@code BulkheadRegistryCustomizer}'s resolver
     * answers) gets it, every other host the template.
     */
    public static PerHostBulkheads of(BulkheadRegistry registry, String namePrefix, BulkheadConfig template,
            int maxHosts) {
        return new PerHostBulkheads(registry, namePrefix, template, maxHosts,
                BulkheadClientHttpRequestInterceptor.perHost(registry, namePrefix,
                        (name) -> registry.findConfig(name).isPresent() ? null : template, maxHosts));
    }
}
