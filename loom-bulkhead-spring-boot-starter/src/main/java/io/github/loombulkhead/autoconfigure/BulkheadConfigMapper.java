package io.github.loombulkhead.autoconfigure;

import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.Defaults;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.Instance;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.InstanceAdaptive;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.NamedInstance;

import org.springframework.util.ClassUtils;

import org.springframework.boot.context.properties.source.ConfigurationProperty;

/**
 * Maps {@link LoomBulkheadProperties} to validated {@link BulkheadConfig}s: an instance overrides the
 * defaults field by field, and a bad value fails with an {@link InvalidBulkheadPropertyException} naming
 * the property that actually holds it, quoting the value as written and where it was set.
 */
public final class BulkheadConfigMapper {

    private static final String DEFAULTS = "loom.bulkhead.defaults";

    private static final String INSTANCES = "loom.bulkhead.instances";

    private final LoomBulkheadProperties properties;

    private final Function<String, ConfigurationProperty> sources;

    private final AdaptiveLimitMapper adaptive;

    /**
     * A mapper of {@code properties}.
     * @param properties the bound properties
     * @param sources gives a property as set, with its value as written and its origin (file and line), for
     * error messages; may return null
     */
    public BulkheadConfigMapper(LoomBulkheadProperties properties, Function<String, ConfigurationProperty> sources) {
        this(properties, sources, ClassUtils.getDefaultClassLoader());
    }

    /**
     * @param properties the bound properties
     * @param sources gives a property as set, with its value as written and its origin (file and line), for
     * error messages; may return null
     * @param classLoader loads the exception classes named in {@code adaptive.drop-exceptions}
     */
    public BulkheadConfigMapper(LoomBulkheadProperties properties, Function<String, ConfigurationProperty> sources,
            ClassLoader classLoader) {
        this.properties = properties;
        this.sources = sources;
        this.adaptive = new AdaptiveLimitMapper((key) -> {
            ConfigurationProperty property = sources.apply(key);
            return (property != null && property.getOrigin() != null) ? property.getOrigin().toString() : null;
        }, (key) -> sources.apply(key) != null, classLoader);
    }

    /**
     * Checks every setting under {@code loom.bulkhead}: the defaults, each instance, the per-host template and
     * the HTTP and task-execution settings, so a bad value fails at startup whether or not its feature is used.
     * @throws InvalidBulkheadPropertyException naming the first bad property, its value and how to fix it
     */
    public void validate() {
        durationUnits();
        defaults();
        instances();
        perHostTemplate();
        validateIntegrations();
    }

    /**
     * Refuses a duration written as a bare number ({@code max-wait-duration: 30}): Spring Boot would read it as
     * milliseconds, and someone meaning seconds would cut it a thousandfold. {@code 0} needs no unit.
     */
    private void durationUnits() {
        List<String> keys = new ArrayList<>();
        keys.add(DEFAULTS + ".max-wait-duration");
        this.properties.getInstances().keySet().forEach((name) -> {
            if (name != null && !name.isBlank()) {
                String key = instanceKey(name);
                keys.addAll(List.of(key + ".max-wait-duration", key + ".cluster.lease-duration",
                        key + ".cluster.idle-linger"));
            }
        });
        keys.add("loom.bulkhead.http.per-host.template.max-wait-duration");
        keys.add("loom.bulkhead.server.retry-after");
        keys.add("loom.bulkhead.server.disconnect-check-interval");
        for (String key : keys) {
            ConfigurationProperty property = this.sources.apply(key);
            Object value = (property != null) ? property.getValue() : null;
            String number = bareNumber(value);
            if (number == null || new BigInteger(number).signum() == 0) {
                continue;
            }
            String reason = "a duration needs a unit; a bare number would be read as milliseconds, so " + number
                    + " would mean " + number + "ms (a thousand times shorter than " + number + "s)";
            if (number.startsWith("-")) {
                String positive = number.substring(1);
                throw invalid(key, value, reason, "Write '" + key + "' as a duration of 0 or more with a unit, e.g. "
                        + positive + "s or " + positive + "ms.");
            }
            throw invalid(key, value, reason, "Write '" + key + "' with a unit: " + number + "s or " + number
                    + "ms (or an ISO-8601 duration such as PT" + number + "S). Only 0 may be written without a unit.");
        }
    }

    /** {@code value} as a whole number without a unit (e.g. {@code 30} or {@code "30"}), or {@code null}. */
    private static String bareNumber(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
                || value instanceof BigInteger) {
            return value.toString();
        }
        if (value instanceof CharSequence text) {
            String trimmed = text.toString().trim();
            return trimmed.matches("[-+]?\\d+") ? trimmed.replaceFirst("^\\+", "") : null;
        }
        return null;
    }

    /** The config of every bulkhead without an entry of its own. */
    public BulkheadConfig defaults() {
        return merge(null, null);
    }

    /** The config of each bulkhead under {@code loom.bulkhead.instances}, in declaration order. */
    public Map<String, BulkheadConfig> instances() {
        Map<String, BulkheadConfig> configs = new LinkedHashMap<>();
        this.properties.getInstances().forEach((name, instance) -> {
            if (name == null || name.isBlank()) {
                throw invalid(INSTANCES, name, "a bulkhead name must not be blank",
                        "Give the bulkhead a name, e.g. loom.bulkhead.instances.callee.max-concurrent-calls=100.");
            }
            BulkheadConfig config = merge(instance, instanceKey(name));
            if (instance.getCluster().isEnabled()) {
                checkCluster(name, instance, config);
            }
            configs.put(name, config);
        });
        return configs;
    }

    /**
     * A bulkhead whose limit is leased from Redis needs a static limit and must be able to wait (the first call of an
     * idle process waits one Redis round trip); fails naming the property that holds what is not so.
     */
    private void checkCluster(String name, NamedInstance instance, BulkheadConfig config) {
        String key = instanceKey(name);
        String cluster = "'" + key + ".cluster.enabled' is true";
        String orDisable = ", or set '" + key + ".cluster.enabled' to false.";
        Defaults defaults = this.properties.getDefaults();
        if (config.getAdaptive() != null) {
            InstanceAdaptive adaptive = instance.getAdaptive();
            Setting<Boolean> enabled = setting(defaults.getAdaptive().isEnabled(),
                    (adaptive != null) ? adaptive.getEnabled() : null, key, "adaptive.enabled");
            throw invalid(enabled.key(), true, "an adaptive limit does not combine with a cluster limit (" + cluster
                    + "): each process's algorithm would move its own limit, while the cluster bound is one for all",
                    "Set '" + key + ".adaptive.enabled' to false" + orDisable);
        }
        if (config.getQueueCapacity() == 0) {
            Setting<Integer> queue = setting(defaults.getQueueCapacity(), instance.getQueueCapacity(), key,
                    "queue-capacity");
            throw invalid(queue.key(), 0, "a cluster bulkhead's calls wait for leases from Redis, so it needs a queue ("
                    + cluster + ")", "Set '" + key + ".queue-capacity' to 1 or more" + orDisable);
        }
        if (config.getMaxWaitDuration().isZero()) {
            Setting<Duration> wait = setting(defaults.getMaxWaitDuration(), instance.getMaxWaitDuration(), key,
                    "max-wait-duration");
            throw invalid(wait.key(), wait.value(), "a cluster bulkhead's calls wait for leases from Redis, so they "
                    + "must be allowed to wait (" + cluster + ")",
                    "Set '" + key + ".max-wait-duration' to a duration of a few milliseconds or more, e.g. 1s" + orDisable);
        }
        if (name.contains("{") || name.contains("}")) {
            throw invalid(key + ".cluster.enabled", true, "a cluster bulkhead's name must not contain braces (Redis "
                    + "keys put them around the name)", "Rename the bulkhead '" + name + "'" + orDisable);
        }
    }

    /** The config of each per-host HTTP bulkhead. */
    public BulkheadConfig perHostTemplate() {
        return merge(this.properties.getHttp().getPerHost().getTemplate(), "loom.bulkhead.http.per-host.template");
    }

    /** The property prefix of the instance called {@code name}, with brackets when the name needs them. */
    public static String instanceKey(String name) {
        return INSTANCES + (name.matches("[a-z0-9][a-z0-9-]*") ? "." + name : "[" + name + "]");
    }

    private BulkheadConfig merge(Instance overrides, String overridesKey) {
        Defaults defaults = this.properties.getDefaults();
        Setting<Integer> max = setting(defaults.getMaxConcurrentCalls(),
                (overrides != null) ? overrides.getMaxConcurrentCalls() : null, overridesKey, "max-concurrent-calls");
        Setting<Duration> wait = setting(defaults.getMaxWaitDuration(),
                (overrides != null) ? overrides.getMaxWaitDuration() : null, overridesKey, "max-wait-duration");
        Setting<Integer> queue = setting(defaults.getQueueCapacity(),
                (overrides != null) ? overrides.getQueueCapacity() : null, overridesKey, "queue-capacity");
        boolean fair = (overrides != null && overrides.getFair() != null) ? overrides.getFair() : defaults.isFair();
        check(max, () -> BulkheadConfig.custom().maxConcurrentCalls(max.value()).build(), "must be at least 1",
                "to 1 or more: the number of calls that may hold a permit at once");
        check(wait, () -> BulkheadConfig.custom().maxWaitDuration(wait.value()).build(), "must not be negative",
                "to a duration of 0 or more, e.g. 30s (0 disables waiting)");
        check(queue, () -> BulkheadConfig.custom().queueCapacity(queue.value()).build(), "must be 0 or more",
                "to 0 or more: the number of calls that may wait for a permit (0 disables waiting)");
        InstanceAdaptive adaptiveOverrides = (overrides != null) ? overrides.getAdaptive() : null;
        return BulkheadConfig.custom()
            .maxConcurrentCalls(max.value())
            .maxWaitDuration(wait.value())
            .queueCapacity(queue.value())
            .fair(fair)
            .adaptive(this.adaptive.adaptive(defaults.getAdaptive(), adaptiveOverrides, overridesKey, max))
            .dropClassifier(this.adaptive.dropClassifier(defaults.getAdaptive(), adaptiveOverrides, overridesKey))
            .build();
    }

    /** Checks the settings that are not bulkhead configs: HTTP and task execution. */
    private void validateIntegrations() {
        LoomBulkheadProperties.PerHost perHost = this.properties.getHttp().getPerHost();
        if (perHost.getMaxHosts() < 1) {
            throw invalid("loom.bulkhead.http.per-host.max-hosts", perHost.getMaxHosts(),
                    "must be at least 1", "Set 'loom.bulkhead.http.per-host.max-hosts' to 1 or more.");
        }
        if (perHost.getNamePrefix() == null) {
            throw invalid("loom.bulkhead.http.per-host.name-prefix", null, "must not be null",
                    "Set 'loom.bulkhead.http.per-host.name-prefix' to a prefix such as 'host:', or leave it empty.");
        }
        this.properties.getHttp().getGroups().forEach((group, settings) -> {
            if (settings.getBulkhead() != null && settings.getBulkhead().isBlank()) {
                String key = "loom.bulkhead.http.groups." + group + ".bulkhead";
                throw invalid(key, settings.getBulkhead(), "a bulkhead name must not be blank",
                        "Remove '" + key + "' to use the group name, or set it to a bulkhead name.");
            }
        });
        String taskBulkhead = this.properties.getTaskExecution().getBulkhead();
        if (taskBulkhead == null || taskBulkhead.isBlank()) {
            throw invalid("loom.bulkhead.task-execution.bulkhead", taskBulkhead, "a bulkhead name must not be blank",
                    "Set 'loom.bulkhead.task-execution.bulkhead' to a bulkhead name.");
        }
    }

    private static <T> Setting<T> setting(T defaultValue, T override, String overridesKey, String field) {
        return Setting.of(defaultValue, override, overridesKey, field);
    }

    /** Builds a config with only this setting; when the core refuses it, fails with {@code rule} and {@code fix}. */
    private void check(Setting<?> setting, Supplier<BulkheadConfig> build, String rule, String fix) {
        try {
            build.get();
        }
        catch (IllegalArgumentException ex) {
            Object written = written(setting.key(), setting.value());
            throw invalid(setting.key(), written, rule + " but was " + written, "Set '" + setting.key() + "' " + fix + ".");
        }
    }

    private InvalidBulkheadPropertyException invalid(String key, Object value, String reason, String fix) {
        return InvalidBulkheadPropertyException.of(this.sources, key, value, reason, fix);
    }

    /** The value as the user wrote it (e.g. {@code -5s}), or the bound value when no property source has it. */
    private Object written(String key, Object bound) {
        return InvalidBulkheadPropertyException.written(this.sources.apply(key), bound);
    }

    /** A value and the property it came from. */
    record Setting<T>(String key, T value) {

        /** The override under {@code overridesKey} when set, else the default under {@code loom.bulkhead.defaults}. */
        static <T> Setting<T> of(T defaultValue, T override, String overridesKey, String field) {
            return (override != null) ? new Setting<>(overridesKey + "." + field, override)
                    : new Setting<>(DEFAULTS + "." + field, defaultValue);
        }
    }
}
