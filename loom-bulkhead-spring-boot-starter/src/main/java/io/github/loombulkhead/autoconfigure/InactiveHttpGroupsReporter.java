package io.github.loombulkhead.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.HttpGroup;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Logs one WARN at startup when {@code loom.bulkhead.http.groups.<group>} bounds HTTP service groups but
 * loom-bulkhead is inactive, so the application does not believe the calls of those groups' clients are bounded
 * when they are not.
 */
class InactiveHttpGroupsReporter implements SmartInitializingSingleton {

    static final String GROUPS = "loom.bulkhead.http.groups";

    private static final Log logger = LogFactory.getLog(InactiveHttpGroupsReporter.class);

    private final Environment environment;

    InactiveHttpGroupsReporter(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void afterSingletonsInstantiated() {
        List<String> groups = boundedGroups();
        if (!groups.isEmpty()) {
            logger.warn(message(groups));
        }
    }

    /** The WARN text for the groups that the configuration bounds. */
    String message(List<String> groups) {
        return GROUPS + " bounds the HTTP service group(s) [" + String.join(", ", groups) + "] but loom-bulkhead is "
                + "INACTIVE, so the calls of their clients are NOT bounded: "
                + InactiveBulkheadsReporter.reason(this.environment);
    }

    /** The groups under {@code loom.bulkhead.http.groups} that are not switched off, with their bulkheads. */
    List<String> boundedGroups() {
        Map<String, HttpGroup> groups;
        try {
            groups = Binder.get(this.environment)
                .bind(GROUPS, Bindable.mapOf(String.class, HttpGroup.class))
                .orElse(Map.of());
        }
        catch (RuntimeException ex) {
            // Values the inactive starter cannot bind; it has nothing to say about them.
            return List.of();
        }
        List<String> bounded = new ArrayList<>();
        groups.forEach((group, settings) -> {
            if (settings.isEnabled()) {
                String bulkhead = (settings.getBulkhead() != null) ? settings.getBulkhead() : group;
                bounded.add(group + ((bulkhead.equals(group)) ? "" : " (bulkhead '" + bulkhead + "')"));
            }
        });
        return bounded;
    }
}
