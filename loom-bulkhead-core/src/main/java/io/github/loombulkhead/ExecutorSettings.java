package io.github.loombulkhead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.DropClassifier;

/**
 * The bulkhead settings a {@link BoundedVirtualExecutor.Builder} made explicitly ({@code null}: not set),
 * and how they meet a registry: the registry's configuration of a name, or its existing bulkhead of that name, wins,
 * and an explicit setting that contradicts it is an error.
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
     * The registry's bulkhead of {@code name}: as the registry configures it, or else the existing one (then no
     * setting here may contradict either), or else a new one of these settings over the registry's defaults.
     * @throws IllegalArgumentException naming every setting that contradicts the registry's configuration or the
     * existing bulkhead
     */
    Bulkhead fromRegistry(String name, BulkheadRegistry registry) {
        BulkheadConfig registered = registry.configuredFor(name);
        if (registered != null) {
            checkAgainst(name, registered, "the registry's configuration");
            return registry.bulkhead(name, registered);
        }
        Bulkhead existing = registry.find(name).orElse(null);
        if (existing != null) {
            // As created: a limit changed at runtime (Actuator) does not make the same builder fail later.
            checkAgainst(name, existing.createdWith(), "the registry's existing bulkhead");
            return existing;
        }
        return registry.bulkhead(name, applyTo(BulkheadConfig.from(registry.resolveConfig(name))).build());
    }

    /** @throws IllegalArgumentException naming every setting here that differs from {@code winner} */
    private void checkAgainst(String name, BulkheadConfig winner, String source) {
        List<String> conflicts = new ArrayList<>();
        conflict(conflicts, "maxConcurrentCalls", this.maxConcurrentCalls, winner.getMaxConcurrentCalls(), source);
        conflict(conflicts, "queueCapacity", this.queueCapacity, winner.getQueueCapacity(), source);
        conflict(conflicts, "maxWaitDuration", this.maxWaitDuration, winner.getMaxWaitDuration(), source);
        conflict(conflicts, "fair", this.fair, winner.isFair(), source);
        if (this.adaptive != null
                && (winner.getAdaptive() == null || !winner.getAdaptive().equals(adaptiveAsBuiltFor(winner)))) {
            conflicts.add("an adaptive limit, but " + source + " has "
                    + (winner.isAdaptive() ? "its own adaptive limit" : "a static one"));
        }
        if (this.dropClassifier != null && !this.dropClassifier.equals(winner.getDropClassifier())) {
            conflicts.add("a drop classifier, but " + source + " has its own");
        }
        if (!conflicts.isEmpty()) {
            throw new IllegalArgumentException("Bulkhead '" + name + "': the builder sets "
                    + String.join(", ", conflicts) + "; configure the bulkhead in one place, the registry or the "
                    + "builder");
        }
    }

    /**
     * This builder's adaptive limit as a bulkhead with {@code winner}'s ceiling holds it: the ceiling becomes its
     * max limit (and may lower its default start); {@code null} when it cannot have that ceiling.
     */
    private AdaptiveLimitConfig adaptiveAsBuiltFor(BulkheadConfig winner) {
        try {
            return BulkheadConfig.custom()
                .maxConcurrentCalls(winner.getMaxConcurrentCalls())
                .adaptive(this.adaptive)
                .build()
                .getAdaptive();
        }
        catch (IllegalArgumentException ex) {
            return null;
        }
    }

    private static void conflict(List<String> conflicts, String setting, Object set, Object winner, String source) {
        if (set != null && !set.equals(winner)) {
            conflicts.add(setting + "=" + set + " but " + source + " has " + winner);
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
