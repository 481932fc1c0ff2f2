package io.github.loombulkhead.autoconfigure;

import java.util.function.Function;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.core.env.Environment;

/**
 * A {@code loom.bulkhead.*} property has a value the library cannot use. Carries what a failure analysis
 * needs to tell the user which property, which value and how to fix it.
 */
public class InvalidBulkheadPropertyException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String property;

    private final transient Object value;

    private final String origin;

    private final String reason;

    private final String fix;

    public InvalidBulkheadPropertyException(String property, Object value, String origin, String reason, String fix) {
        super("Invalid value '" + value + "' for property '" + property + "'" + ((origin != null) ? " (" + origin + ")" : "")
                + ": " + reason);
        this.property = property;
        this.value = value;
        this.origin = origin;
        this.reason = reason;
        this.fix = fix;
    }

    /**
     * An exception for {@code property} quoting its value as written and where it was set, as {@code environment}'s
     * property sources have it; {@code bound} when no source has it (a default).
     */
    public static InvalidBulkheadPropertyException of(Environment environment, String property, Object bound,
            String reason, String fix) {
        return of(new PropertyOrigins(environment), property, bound, reason, fix);
    }

    /** {@link #of(Environment, String, Object, String, String)} with the properties as {@code sources} finds them. */
    static InvalidBulkheadPropertyException of(Function<String, ConfigurationProperty> sources, String property,
            Object bound, String reason, String fix) {
        ConfigurationProperty written = sources.apply(property);
        String origin = (written != null && written.getOrigin() != null) ? written.getOrigin().toString() : null;
        return new InvalidBulkheadPropertyException(property, written(written, bound), origin, reason, fix);
    }

    /** The value as the user wrote it (e.g. {@code -5s}), or {@code bound} when no property source has it. */
    static Object written(ConfigurationProperty written, Object bound) {
        return (written != null && written.getValue() != null) ? written.getValue() : bound;
    }

    /** The full property name, e.g. {@code loom.bulkhead.instances.callee.max-concurrent-calls}. */
    public String getProperty() {
        return this.property;
    }

    /** The value that was rejected, as the configuration wrote it when known (e.g. {@code -5s}). */
    public Object getValue() {
        return this.value;
    }

    /** Where the value was set (file and line), or {@code null} if unknown. */
    public String getOrigin() {
        return this.origin;
    }

    /** Why the value cannot be used. */
    public String getReason() {
        return this.reason;
    }

    /** What to change, e.g. "Set ... to 1 or more". */
    public String getFix() {
        return this.fix;
    }
}
