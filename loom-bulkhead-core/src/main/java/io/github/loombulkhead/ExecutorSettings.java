package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;

/**
 * The bulkhead settings a {@link BoundedVirtualExecutor.Builder} made explicitly ({@code null}: not set),
 * and how they meet a registry's configuration: the registry's configuration of a name wins, and an
 * explicit setting that contradicts it is an error.
 */
final class ExecutorSettings {

    Integer maxConcurrentCalls;

    Integer queueCapacity;

    Duration maxWaitDuration;

    Boolean fair;

    AdaptiveLimitConfig adaptive;

    DropClassifier dropClassifier;

    void copy(BulkheadConfig config) {
        this.maxConcurrentCalls = config.getMaxConcurrentCalls();
        this.queueCapacity = config.getQueueCapacity();
        this.maxWaitDuration = config.getMaxWaitDuration();
        this.fair = config.isFair();
        this.adaptive = config.getAdaptive();
        this.dropClassifier = config.getDropClassifier();
    }

    /** A new bulkhead of these settings over the defaults. */
    Bulkhead newBulkhead(String name) {
        return new Bulkhead(name, applyTo(BulkheadConfig.custom()).build());
    }

    /**
     * The registry's bulkhead of {@code name}: as the registry configures it (then no setting here may
     * contradict it), or else the existing one, or else a new one of these settings over the registry's defaults.
     * @throws IllegalArgumentException naming every setting that contradicts the registry's configuration
     */
    Bulkhead fromRegistry(String name, BulkheadRegistry registry) {
        BulkheadConfig registered = registry.configuredFor(name);
        if (registered == null) {
            Bulkhead existing = registry.find(name).orElse(null);
            return (existing != null) ? existing
                    : registry.bulkhead(name, applyTo(BulkheadConfig.from(registry.resolveConfig(name))).build());
        }
        List<String> conflicts = new ArrayList<>();
        conflict(conflicts, "maxConcurrentCalls", this.maxConcurrentCalls, registered.getMaxConcurrentCalls());
        conflict(conflicts, "queueCapacity", this.queueCapacity, registered.getQueueCapacity());
        conflict(conflicts, "maxWaitDuration", this.maxWaitDuration, registered.getMaxWaitDuration());
        conflict(conflicts, "fair", this.fair, registered.isFair());
        if (this.adaptive != null) {
            conflicts.add("an adaptive limit, but the registry's configuration has "
                    + (registered.isAdaptive() ? "its own adaptive limit" : "a static one"));
        }
        if (!conflicts.isEmpty()) {
            throw new IllegalArgumentException("Bulkhead '" + name + "': the builder sets "
                    + String.join(", ", conflicts) + "; configure the bulkhead in one place, the registry or the "
                    + "builder");
        }
        return registry.bulkhead(name, registered);
    }

    private static void conflict(List<String> conflicts, String setting, Object set, Object registered) {
        if (set != null && !set.equals(registered)) {
            conflicts.add(setting + "=" + set + " but the registry's configuration has " + registered);
        }
    }

    private BulkheadConfig.Builder applyTo(BulkheadConfig.Builder config) {
        if (this.maxConcurrentCalls != null) {
            config.maxConcurrentCalls(this.maxConcurrentCalls);
        }
        if (this.queueCapacity != null) {
            config.queueCapacity(this.queueCapacity);
        }
        if (this.maxWaitDuration != null) {
            config.maxWaitDuration(this.maxWaitDuration);
        }
        if (this.fair != null) {
            config.fair(this.fair);
        }
        if (this.adaptive != null) {
            config.adaptive(this.adaptive);
        }
        if (this.dropClassifier != null) {
            config.dropClassifier(this.dropClassifier);
        }
        return config;
    }
}
