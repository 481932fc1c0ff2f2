package io.github.loombulkhead.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper.Setting;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.DefaultAdaptive;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.InstanceAdaptive;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.AdaptiveLimitConfig.Algorithm;
import io.github.loombulkhead.limit.AdaptiveLimitConfig.Builder;
import io.github.loombulkhead.limit.DropClassifier;

import org.springframework.util.ClassUtils;

/**
 * Maps the {@code adaptive.*} settings of one bulkhead (an instance over the defaults, field by field) to an
 * {@link AdaptiveLimitConfig} below its ceiling {@code max-concurrent-calls} and a {@link DropClassifier}; a value
 * that cannot be used fails with an {@link InvalidBulkheadPropertyException} naming the property that holds it.
 */
final class AdaptiveLimitMapper {

    private static final String ADAPTIVE = "adaptive.";

    /** Overrides of the defaults when there is no instance: none. */
    private static final InstanceAdaptive UNSET = new InstanceAdaptive();

    private final Function<String, String> origins;

    private final Predicate<String> isSet;

    private final ClassLoader classLoader;

    /**
     * @param origins where a property was set (file and line), or {@code null}
     * @param isSet whether a property source holds the key
     * @param classLoader loads the exception classes named in {@code drop-exceptions}
     */
    AdaptiveLimitMapper(Function<String, String> origins, Predicate<String> isSet, ClassLoader classLoader) {
        this.origins = origins;
        this.isSet = isSet;
        this.classLoader = classLoader;
    }

    /**
     * The adaptive limit of a bulkhead whose ceiling is {@code max}, or {@code null} when its limit is static.
     * @param overridesKey the property prefix of {@code overrides}, e.g. {@code loom.bulkhead.instances.callee}
     */
    AdaptiveLimitConfig adaptive(DefaultAdaptive defaults, InstanceAdaptive overrides, String overridesKey,
            Setting<Integer> max) {
        InstanceAdaptive o = (overrides != null) ? overrides : UNSET;
        // Each value is checked even when adaptive is off, so a typo fails now, not when it is switched on; only the
        // combinations with the ceiling wait for the switch.
        Setting<Integer> min = setting(defaults.getMinLimit(), o.getMinLimit(), overridesKey, "min-limit");
        Setting<Integer> initial = setting(defaults.getInitialLimit(), o.getInitialLimit(), overridesKey,
                "initial-limit");
        // A start nobody chose follows the bounds: the default 100, moved up to min-limit or down to the ceiling.
        boolean chosen = o.getInitialLimit() != null
                || defaults.getInitialLimit() != AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT
                || this.isSet.test(initial.key());
        if (chosen) {
            check(initial, (b) -> b.minLimit(1).initialLimit(initial.value()),
                    "to 1 or more: the limit before the first sample");
        }
        Builder builder = AdaptiveLimitConfig.custom()
            .algorithm(algorithm(setting(defaults.getAlgorithm(), o.getAlgorithm(), overridesKey, "algorithm")))
            .minLimit(check(min, (b) -> b.minLimit(min.value()).initialLimit(Math.max(1, min.value())),
                    "to 1 or more: the lowest limit the algorithm sets"))
            .rttTolerance(checkField(setting(defaults.getRttTolerance(), o.getRttTolerance(), overridesKey,
                    "rtt-tolerance"), Builder::rttTolerance, "to a ratio above 1 and at most 10, e.g. 1.15"))
            .increaseRatio(checkField(setting(defaults.getIncreaseRatio(), o.getIncreaseRatio(), overridesKey,
                    "increase-ratio"), Builder::increaseRatio, "to a fraction above 0 and at most 1, e.g. 0.05"))
            .windowSamples(checkField(setting(defaults.getWindowSamples(), o.getWindowSamples(), overridesKey,
                    "window-samples"), Builder::windowSamples, "to a number of calls from 1 to 10000, e.g. 16"))
            .dropBackoff(checkField(setting(defaults.getDropBackoff(), o.getDropBackoff(), overridesKey,
                    "drop-backoff"), Builder::dropBackoff, "to a factor of at least 0.1 and below 1, e.g. 0.8"))
            .dropTolerance(checkField(setting(defaults.getDropTolerance(), o.getDropTolerance(), overridesKey,
                    "drop-tolerance"), Builder::dropTolerance, "to a fraction of at least 0 and below 1, e.g. 0.05"))
            .backoffRatio(checkField(setting(defaults.getBackoffRatio(), o.getBackoffRatio(), overridesKey,
                    "backoff-ratio"), Builder::backoffRatio, "to a factor of at least 0.1 and below 1, e.g. 0.75"));
        Setting<Boolean> enabled = setting(defaults.isEnabled(), o.getEnabled(), overridesKey, "enabled");
        if (!enabled.value()) {
            return null;
        }
        if (min.value() > max.value()) {
            throw invalid(min, "min-limit " + min.value() + " is above the ceiling max-concurrent-calls " + max.value()
                    + " ('" + max.key() + "')", "Set '" + min.key() + "' to at most " + max.value()
                            + orForThisBulkhead(min, overridesKey, "min-limit") + ", or raise '" + max.key() + "'.");
        }
        Setting<Integer> start = chosen ? initial
                : new Setting<>(initial.key(), Math.max(min.value(), Math.min(initial.value(), max.value())));
        if (start.value() < min.value() || start.value() > max.value()) {
            throw invalid(start, "initial-limit must be within min-limit " + min.value() + " ('" + min.key()
                    + "') and the ceiling max-concurrent-calls " + max.value() + " ('" + max.key() + "')",
                    "Set '" + start.key() + "' to a value from " + min.value() + " to " + max.value()
                            + orForThisBulkhead(start, overridesKey, "initial-limit") + ".");
        }
        try {
            return builder.initialLimit(start.value()).maxLimit(max.value()).build();
        }
        catch (IllegalArgumentException ex) {
            String group = enabled.key().substring(0, enabled.key().length() - ".enabled".length());
            throw invalid(enabled, ex.getMessage(), "Correct the settings under '" + group + "'.");
        }
    }

    /** Which failed calls of a bulkhead are drops, from {@code adaptive.drop-exceptions}. */
    DropClassifier dropClassifier(DefaultAdaptive defaults, InstanceAdaptive overrides, String overridesKey) {
        InstanceAdaptive o = (overrides != null) ? overrides : UNSET;
        Setting<List<String>> names = setting(defaults.getDropExceptions(), o.getDropExceptions(), overridesKey,
                "drop-exceptions");
        if (names.value() == null || names.value().equals(DefaultAdaptive.DEFAULT_DROP_EXCEPTIONS)) {
            // The core's defaults know the optional Spring Web types by name: no need for them on the class path.
            return DropClassifier.ofDefaults();
        }
        List<Class<? extends Throwable>> types = new ArrayList<>();
        for (int i = 0; i < names.value().size(); i++) {
            String name = names.value().get(i);
            if (name != null && DefaultAdaptive.DEFAULT_DROP_EXCEPTIONS.contains(name.trim())
                    && !ClassUtils.isPresent(name.trim(), this.classLoader)) {
                // A default type of an optional library (Spring Web's 503 and 429) that is not on the class path:
                // nothing can throw it, so listing the defaults to add a type works without that library too.
                continue;
            }
            types.add(exceptionType(new Setting<>(names.key() + "[" + i + "]", name), names.key()));
        }
        return DropClassifier.of(types);
    }

    private Class<? extends Throwable> exceptionType(Setting<String> name, String listKey) {
        String fix = "Set '" + name.key() + "' to the fully qualified name of an exception class on the class path, "
                + "e.g. java.net.ConnectException (a nested class as Outer$Inner), or remove it.";
        if (name.value() == null || name.value().isBlank()) {
            throw invalid(name, listKey, "an exception class name must not be blank", fix);
        }
        Class<?> type;
        try {
            type = ClassUtils.forName(name.value().trim(), this.classLoader);
        }
        catch (ClassNotFoundException | LinkageError ex) {
            throw invalid(name, listKey, "no class named '" + name.value().trim() + "' on the class path", fix);
        }
        if (!Throwable.class.isAssignableFrom(type)) {
            throw invalid(name, listKey, type.getName() + " is not an exception (a java.lang.Throwable)", fix);
        }
        return type.asSubclass(Throwable.class);
    }

    private Algorithm algorithm(Setting<String> algorithm) {
        try {
            return Algorithm.ofName(algorithm.value());
        }
        catch (IllegalArgumentException ex) {
            throw invalid(algorithm, ex.getMessage(), "Set '" + algorithm.key() + "' to gradient or aimd.");
        }
    }

    /** Builds a config differing from the defaults in one setting, so a failure names that setting. */
    private <T> T check(Setting<T> setting, UnaryOperator<Builder> change, String fix) {
        try {
            change.apply(AdaptiveLimitConfig.custom().maxLimit(Integer.MAX_VALUE)).build();
        }
        catch (IllegalArgumentException ex) {
            throw invalid(setting, ex.getMessage(), "Set '" + setting.key() + "' " + fix + ".");
        }
        return setting.value();
    }

    private <T> T checkField(Setting<T> setting,
            BiFunction<Builder, T, Builder> field, String fix) {
        return check(setting, (builder) -> field.apply(builder, setting.value()), fix);
    }

    /**
     * For a value {@code setting} took from the defaults, the key that sets it for this bulkhead alone (changing the
     * default would change every bulkhead that inherits it); nothing for a value set on the bulkhead itself.
     */
    private static String orForThisBulkhead(Setting<?> setting, String overridesKey, String field) {
        if (overridesKey == null) {
            return "";
        }
        String own = overridesKey + "." + ADAPTIVE + field;
        if (setting.key().equals(own)) {
            return "";
        }
        return ", or set '" + own + "' for " + (overridesKey.startsWith("loom.bulkhead.instances")
                ? "this bulkhead alone" : "these bulkheads alone");
    }

    private static <T> Setting<T> setting(T defaultValue, T override, String overridesKey, String field) {
        return Setting.of(defaultValue, override, overridesKey, ADAPTIVE + field);
    }

    private InvalidBulkheadPropertyException invalid(Setting<?> setting, String reason, String fix) {
        return new InvalidBulkheadPropertyException(setting.key(), setting.value(), this.origins.apply(setting.key()),
                reason, fix);
    }

    /** An element of a list: its origin is the element's when it was written as one, else the list's. */
    private InvalidBulkheadPropertyException invalid(Setting<?> element, String listKey, String reason, String fix) {
        String origin = this.origins.apply(element.key());
        return new InvalidBulkheadPropertyException(element.key(), element.value(),
                (origin != null) ? origin : this.origins.apply(listKey), reason, fix);
    }
}
