package io.github.loombulkhead.autoconfigure.http;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.HttpGroup;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.HttpServiceGroup;

/**
 * Puts a bulkhead on every client of each HTTP service group listed under
 * {@code loom.bulkhead.http.groups}: all calls of the group share the bulkhead named by
 * {@code loom.bulkhead.http.groups.<group>.bulkhead} (default: the group name). When the application chose
 * no request factory, the group's client gets an HttpClient 5 factory whose pool is sized from its bulkhead
 * (or from the per-host bulkheads), with the group's {@code spring.http.serviceclient.<group>.*} settings. A
 * listed group that does not exist is reported with a WARN instead of being ignored. Runs after Spring Boot's
 * own group configurers, and after the {@code RestClientCustomizer}s, whose request factory it replaces.
 */
public class BulkheadHttpServiceGroupConfigurer implements RestClientHttpServiceGroupConfigurer {

    private static final Log logger = LogFactory.getLog(BulkheadHttpServiceGroupConfigurer.class);

    private final Map<String, HttpGroup> groups;

    private final BulkheadRegistry registry;

    private final BulkheadRequestFactories requestFactories;

    private final PerHostBulkheads perHost;

    /**
     * @param requestFactories pooled factories, or {@code null} to keep the groups' request factories
     * @param perHost the per-host bulkheads when enabled (they size the pool), otherwise {@code null}
     */
    public BulkheadHttpServiceGroupConfigurer(Map<String, HttpGroup> groups, BulkheadRegistry registry,
            BulkheadRequestFactories requestFactories, PerHostBulkheads perHost) {
        this.groups = groups;
        this.registry = registry;
        this.requestFactories = requestFactories;
        this.perHost = perHost;
    }

    @Override
    public void configureGroups(Groups<RestClient.Builder> groups) {
        Set<String> seen = new LinkedHashSet<>();
        groups.forEachClient((group, builder) -> {
            seen.add(group.name());
            HttpGroup settings = this.groups.get(group.name());
            Bulkhead bulkhead = null;
            if (settings != null && settings.isEnabled()) {
                String name = bulkheadName(group.name(), settings);
                if (AnnotatedBulkheads.of(group.httpServiceTypes()).contains(name)) {
                    throw new IllegalStateException("HTTP service group '" + group.name() + "' is bounded by bulkhead '"
                            + name + "' (loom.bulkhead.http.groups." + group.name() + ") and one of its interfaces "
                            + group.httpServiceTypes().stream().map(Class::getName).toList() + " names the same "
                            + "bulkhead in @Bulkhead: each call would need two permits of '" + name + "', so calls "
                            + "could wait for each other until they time out. Give the group or the annotation "
                            + "another bulkhead name, or remove one of them.");
                }
                bulkhead = this.registry.bulkhead(name);
                builder.requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead));
            }
            ClientHttpRequestFactory factory = requestFactory(group, bulkhead);
            if (factory != null) {
                builder.requestFactory(factory);
            }
        });
        for (String configured : this.groups.keySet()) {
            if (!seen.contains(configured)) {
                logger.warn("loom.bulkhead.http.groups." + configured + " is configured but the application has no "
                        + "HTTP service group '" + configured + "' (groups: " + seen + "); no bulkhead was applied");
            }
        }
    }

    /**
     * The pool must fit every call that can hold a permit at once: the per-host limits if any (they bound
     * every route), else the group's bulkhead, else the bulkheads named by {@code @Bulkhead} on the group's
     * interfaces (their sum when there are several).
     */
    private ClientHttpRequestFactory requestFactory(HttpServiceGroup group, Bulkhead groupBulkhead) {
        if (this.requestFactories == null) {
            return null;
        }
        if (this.perHost != null) {
            return this.requestFactories.forHosts(this.registry, this.perHost.namePrefix(), this.perHost.template(),
                    this.perHost.maxHosts(), group.name());
        }
        if (groupBulkhead != null) {
            return this.requestFactories.forBulkhead(groupBulkhead, group.name());
        }
        List<Bulkhead> annotated = AnnotatedBulkheads.of(group.httpServiceTypes())
            .stream()
            .map(this.registry::bulkhead)
            .toList();
        if (annotated.isEmpty()) {
            return null;
        }
        return (annotated.size() == 1) ? this.requestFactories.forBulkhead(annotated.get(0), group.name())
                : this.requestFactories.forBulkheads(annotated, group.name());
    }

    /** The bulkhead name a group uses. */
    public static String bulkheadName(String group, HttpGroup settings) {
        return (settings.getBulkhead() != null) ? settings.getBulkhead() : group;
    }
}
