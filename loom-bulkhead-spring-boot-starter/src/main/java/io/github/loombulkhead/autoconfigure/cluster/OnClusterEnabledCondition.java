package io.github.loombulkhead.autoconfigure.cluster;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.NamedInstance;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when at least one entry of {@code loom.bulkhead.instances} sets {@code cluster.enabled=true}. */
final class OnClusterEnabledCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        Set<String> names = clusterInstances(context.getEnvironment());
        return names.isEmpty() ? ConditionOutcome.noMatch("no bulkhead sets cluster.enabled")
                : ConditionOutcome.match("cluster.enabled set for " + names);
    }

    /** The names of the instances that enable cluster, sorted. */
    static Set<String> clusterInstances(Environment environment) {
        Map<String, NamedInstance> instances;
        try {
            instances = Binder.get(environment)
                .bind("loom.bulkhead.instances", Bindable.mapOf(String.class, NamedInstance.class))
                .orElse(Map.of());
        }
        catch (BindException ex) {
            // Binding the properties themselves reports the invalid value, with the failure analysis.
            return Set.of();
        }
        Set<String> names = new TreeSet<>();
        instances.forEach((name, instance) -> {
            if (instance.getCluster().isEnabled()) {
                names.add(name);
            }
        });
        return names;
    }
}
