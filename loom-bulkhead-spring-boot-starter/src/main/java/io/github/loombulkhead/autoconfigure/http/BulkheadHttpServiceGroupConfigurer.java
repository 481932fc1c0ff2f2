package io.github.loombulkhead.autoconfigure.http;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.HttpGroup;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;

/**
 * Puts a bulkhead on every client of each HTTP service group listed under
 * {@code loom.bulkhead.http.groups}: all calls of the group share the bulkhead named by
 * {@code loom.bulkhead.http.groups.<group>.bulkhead} (default: the group name). A listed group that does
 * not exist is reported with a WARN instead of being ignored silently.
 */
public class BulkheadHttpServiceGroupConfigurer implements RestClientHttpServiceGroupConfigurer {

    private static final Log logger = LogFactory.getLog(BulkheadHttpServiceGroupConfigurer.class);

    private final Map<String, HttpGroup> groups;

    private final BulkheadRegistry registry;

    public BulkheadHttpServiceGroupConfigurer(Map<String, HttpGroup> groups, BulkheadRegistry registry) {
        this.groups = groups;
        this.registry = registry;
    }

    @Override
    public void configureGroups(Groups<RestClient.Builder> groups) {
        Set<String> seen = new LinkedHashSet<>();
        groups.forEachClient((group, builder) -> {
            seen.add(group.name());
            HttpGroup settings = this.groups.get(group.name());
            if (settings != null && settings.isEnabled()) {
                builder.requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(
                        this.registry.bulkhead(bulkheadName(group.name(), settings))));
            }
        });
        for (String configured : this.groups.keySet()) {
            if (!seen.contains(configured)) {
                logger.warn("loom.bulkhead.http.groups." + configured + " is configured but the application has no "
                        + "HTTP service group '" + configured + "' (groups: " + seen + "); no bulkhead was applied");
            }
        }
    }

    /** The bulkhead name a group uses. */
    public static String bulkheadName(String group, HttpGroup settings) {
        return (settings.getBulkhead() != null) ? settings.getBulkhead() : group;
    }
}
