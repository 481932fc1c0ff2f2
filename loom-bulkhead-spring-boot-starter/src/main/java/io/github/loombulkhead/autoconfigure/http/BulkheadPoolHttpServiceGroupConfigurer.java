package io.github.loombulkhead.autoconfigure.http;

import java.util.List;
import java.util.Map;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.AnnotatedBulkheads;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.HttpGroup;

import org.springframework.core.Ordered;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.HttpServiceGroup;

/**
 * Gives each bounded HTTP service group an HttpClient 5 factory whose pool is sized from its bulkheads. Runs
 * right after Spring Boot's own group configurer, so it replaces only the factory Spring Boot made from
 * {@code spring.http.serviceclient.<group>.*}: a factory that the application's {@code RestClientCustomizer} or
 * {@code RestClientHttpServiceGroupConfigurer} beans set on the group's builder comes later and wins.
 */
public class BulkheadPoolHttpServiceGroupConfigurer implements RestClientHttpServiceGroupConfigurer {

    /** Just after Spring Boot's {@code PropertiesRestClientHttpServiceGroupConfigurer} (highest precedence + 10). */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 11;

    private final Map<String, HttpGroup> groups;

    private final BulkheadRegistry registry;

    private final BulkheadRequestFactories requestFactories;

    private final PerHostBulkheads perHost;

    /** @param perHost the per-host bulkheads when enabled (they size the pool), otherwise {@code null} */
    public BulkheadPoolHttpServiceGroupConfigurer(Map<String, HttpGroup> groups, BulkheadRegistry registry,
            BulkheadRequestFactories requestFactories, PerHostBulkheads perHost) {
        this.groups = groups;
        this.registry = registry;
        this.requestFactories = requestFactories;
        this.perHost = perHost;
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    public void configureGroups(Groups<RestClient.Builder> groups) {
        groups.forEachClient((group, builder) -> {
            ClientHttpRequestFactory factory = requestFactory(group);
            if (factory != null) {
                builder.requestFactory(factory);
                this.requestFactories.serviceGroupClients().add(builder);
            }
        });
    }

    /**
     * The pool must fit every call that can hold a permit at once: the per-host limits if any (they bound
     * every route), else the group's bulkhead, else the bulkheads named by {@code @Bulkhead} on the group's
     * interfaces (their sum), plus a default pool's size when some methods of those interfaces have none.
     */
    private ClientHttpRequestFactory requestFactory(HttpServiceGroup group) {
        if (this.perHost != null) {
            return this.requestFactories.forHosts(this.registry, this.perHost.namePrefix(), this.perHost.template(),
                    this.perHost.maxHosts(), group.name());
        }
        HttpGroup settings = this.groups.get(group.name());
        if (settings != null && settings.isEnabled()) {
            Bulkhead bulkhead = this.registry
                .bulkhead(BulkheadHttpServiceGroupConfigurer.bulkheadName(group.name(), settings));
            return this.requestFactories.forBulkhead(bulkhead, group.name());
        }
        List<Bulkhead> annotated = AnnotatedBulkheads.of(group.httpServiceTypes())
            .stream()
            .map(this.registry::bulkhead)
            .toList();
        if (annotated.isEmpty()) {
            return null;
        }
        boolean unboundedCalls = !AnnotatedBulkheads.coverEveryMethod(group.httpServiceTypes());
        return this.requestFactories.forBulkheads(annotated, unboundedCalls, group.name());
    }
}
