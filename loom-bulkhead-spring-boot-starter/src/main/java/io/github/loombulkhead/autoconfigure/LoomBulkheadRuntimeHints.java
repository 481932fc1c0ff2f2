package io.github.loombulkhead.autoconfigure;

import java.util.List;
import java.util.Map;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * For a native image: what the starter looks up by name or reads reflectively at runtime, each registered only when
 * it is on the class path at build time. In a native image a class looked up by name that has no hint is not found, so
 * without these the starter would quietly act as if the library were missing (no MDC or context propagation into
 * bulkhead tasks, a plain-text 503 instead of Problem Details). Registered in {@code META-INF/spring/aot.factories}.
 */
class LoomBulkheadRuntimeHints implements RuntimeHintsRegistrar {

    /** Classes looked up with {@code ClassUtils.isPresent} when the application runs, not while it is built. */
    static final List<String> LOOKED_UP = List.of(
            // ContextPropagatingDecorator: MDC and Micrometer context propagation into bulkhead tasks
            "org.slf4j.MDC", "io.micrometer.context.ContextSnapshotFactory",
            // ConnectionLimits: the connection pool's per-route limit, for the pool-size warning
            "org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager",
            // LoomBulkheadHttpAutoConfiguration: why a pool was not sized, for the log line
            "org.apache.hc.client5.http.impl.classic.HttpClients",
            "org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientsProperties$Factory",
            // LoomBulkheadServerAutoConfiguration: Problem Details for rejected requests
            "tools.jackson.databind.json.JsonMapper",
            // InactiveBulkheadsReporter: whether the application applies @Bulkhead itself
            "io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor",
            // LoomBulkheadClusterAutoConfiguration: which part is missing for cluster limits
            "io.github.loombulkhead.redis.ClusterBulkheads");

    /** Fields that ConnectionLimits reads: the request factory set on a RestClient.Builder, HttpClient 5's pool. */
    static final Map<String, String> READ_FIELDS = Map.of(
            "org.springframework.web.client.DefaultRestClientBuilder", "requestFactory",
            "org.apache.hc.client5.http.impl.classic.InternalHttpClient", "connManager",
            "org.apache.hc.client5.http.impl.classic.MinimalHttpClient", "connManager");

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        for (String name : LOOKED_UP) {
            hints.reflection().registerTypeIfPresent(classLoader, name, (type) -> {
            });
        }
        READ_FIELDS.forEach((type, field) -> hints.reflection()
            .registerTypeIfPresent(classLoader, type, (hint) -> hint.withField(field)));
    }
}
