package io.github.loombulkhead.autoconfigure.http;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.AnnotatedBulkheads;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.HttpGroup;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.registry.HttpServiceGroup;

/**
 * Puts a bulkhead on every client of each HTTP service group listed under
 * {@code loom.bulkhead.http.groups}: all calls of the group share the bulkhead named by
 * {@code loom.bulkhead.http.groups.<group>.bulkhead} (default: the group name). A listed group that does not
 * exist is reported with a WARN instead of being ignored, and so is a bounded group whose connection pool was
 * not sized from its bulkheads ({@link BulkheadPoolHttpServiceGroupConfigurer} sizes it unless the application
 * chose its own request factory). Runs after Spring Boot's own group configurers and the
 * {@code RestClientCustomizer}s, so the bulkhead is the innermost interceptor.
 */
public class BulkheadHttpServiceGroupConfigurer implements RestClientHttpServiceGroupConfigurer {

    private static final Log logger = LogFactory.getLog(BulkheadHttpServiceGroupConfigurer.class);

    private final Map<String, HttpGroup> groups;

    private final BulkheadRegistry registry;

    private final PerHostBulkheads perHost;

    private final PoolSizeReporter poolSizeReporter;

    /**
     * @param requestFactories the pooled factories, or {@code null} when the starter sizes no pool
     * @param perHost the per-host bulkheads when enabled, otherwise {@code null}
     * @param unsizedReason why there are no pooled factories, when {@code requestFactories} is {@code null}
     */
    public BulkheadHttpServiceGroupConfigurer(Map<String, HttpGroup> groups, BulkheadRegistry registry,
            BulkheadRequestFactories requestFactories, PerHostBulkheads perHost, String unsizedReason) {
        this.groups = groups;
        this.registry = registry;
        this.perHost = perHost;
        this.poolSizeReporter = new PoolSizeReporter(requestFactories, unsizedReason);
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
            reportPool(group, bulkhead, builder);
        });
        for (String configured : this.groups.keySet()) {
            if (!seen.contains(configured)) {
                logger.warn("loom.bulkhead.http.groups." + configured + " is configured but the application has no "
                        + "HTTP service group '" + configured + "' (groups: " + seen + "); no bulkhead was applied");
            }
        }
    }

    /** The limits the pool must fit, as {@link BulkheadPoolHttpServiceGroupConfigurer} sizes it. */
    private void reportPool(HttpServiceGroup group, Bulkhead groupBulkhead, RestClient.Builder builder) {
        String client = "HTTP service group '" + group.name() + "'";
        if (this.perHost != null) {
            this.poolSizeReporter.report(client, "per-host bulkheads (loom.bulkhead.http.per-host)",
                    this.perHost.template().getMaxConcurrentCalls(), builder);
        }
        else if (groupBulkhead != null) {
            this.poolSizeReporter.report(client, "bulkhead '" + groupBulkhead.getName() + "'",
                    PooledHttpRequestFactories.poolLimit(groupBulkhead),
                    builder);
        }
        else {
            List<Bulkhead> annotated = AnnotatedBulkheads.of(group.httpServiceTypes())
                .stream()
                .map(this.registry::bulkhead)
                .toList();
            if (!annotated.isEmpty()) {
                int sum = (int) Math.min(Integer.MAX_VALUE,
                        annotated.stream().mapToLong(PooledHttpRequestFactories::poolLimit).sum());
                this.poolSizeReporter.report(client, "@Bulkhead "
                        + annotated.stream().map(Bulkhead::getName).toList(), sum, builder);
            }
        }
    }

    /** The bulkhead name a group uses. */
    public static String bulkheadName(String group, HttpGroup settings) {
        return (settings.getBulkhead() != null) ? settings.getBulkhead() : group;
    }
}
