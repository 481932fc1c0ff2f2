package io.github.loombulkhead.autoconfigure;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.convert.ConverterNotFoundException;
import org.springframework.core.env.Environment;

/**
 * Turns a value written on a {@code loom.bulkhead.*} key that holds a group of keys into a startup report naming the
 * key and the one meant: {@code adaptive: true} for {@code adaptive.enabled: true} (Spring Boot reports "No converter
 * found capable of converting from type [java.lang.Boolean]" to a properties class), or a group left empty, such as a
 * YAML {@code adaptive:} whose keys are all commented out (Spring Boot reports "No setter found for property").
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class GroupValueFailureAnalyzer extends AbstractFailureAnalyzer<BindException> {

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("loom.bulkhead");

    private static final String PACKAGE = "io.github.loombulkhead.autoconfigure.";

    /** Finds the value as written and where when the binder did not keep it. */
    private final Function<String, ConfigurationProperty> sources;

    /** @param environment the failed application's environment, or {@code null} when it has none */
    GroupValueFailureAnalyzer(@Nullable Environment environment) {
        this.sources = (environment != null) ? new PropertyOrigins(environment) : (key) -> null;
    }

    @Override
    protected @Nullable FailureAnalysis analyze(Throwable rootFailure, BindException bind) {
        Class<?> target = bind.getTarget().getType().resolve();
        if (target == null || !target.getName().startsWith(PACKAGE) || target.isEnum()
                || !isValueOnAGroup(bind.getCause())) {
            return null;
        }
        // The group's own property; for an empty group the binder fails one level up, on the group's parent.
        ConfigurationProperty property = (bind.getProperty() != null) ? bind.getProperty()
                : this.sources.apply(bind.getName().toString());
        ConfigurationPropertyName name = (property != null) ? property.getName() : bind.getName();
        if (!PREFIX.isAncestorOf(name)) {
            return null;
        }
        String key = name.toString();
        Object value = (property != null) ? property.getValue() : null;
        boolean empty = value == null || value.toString().isBlank();
        PropertyKeys.Siblings group = new PropertyKeys(PREFIX, LoomBulkheadProperties.class)
            .siblings(name.append("x"));
        List<String> keys = (group != null && group.parent().equals(key)) ? group.names() : List.of();
        StringBuilder description = new StringBuilder("Bulkhead configuration property '").append(key)
            .append(empty ? "' holds a group of keys but is empty:" : "' holds a group of keys, not a value:")
            .append("\n\n    Property: ").append(key);
        if (value != null) {
            description.append("\n    Value: \"").append(value).append('"');
        }
        if (property != null && property.getOrigin() != null) {
            description.append("\n    Origin: ").append(property.getOrigin());
        }
        description.append("\n    Reason: '").append(key).append("' takes no value of its own")
            .append(empty ? " (a YAML key without keys below it, e.g. all commented out, is read as an empty value)"
                    : "")
            .append(keys.isEmpty() ? "" : "; its keys are " + String.join(", ", keys));
        return new FailureAnalysis(description.toString(), empty ? emptyAction(key, keys) : action(key, value, keys),
                bind);
    }

    /** A value that could not become the group's type, or an empty one the group, having no setter, cannot take. */
    private static boolean isValueOnAGroup(@Nullable Throwable cause) {
        return cause instanceof ConverterNotFoundException || (cause instanceof IllegalStateException
                && cause.getMessage() != null && cause.getMessage().startsWith("No setter found for property"));
    }

    private static String action(String key, Object value, List<String> keys) {
        String text = value.toString().trim().toLowerCase(Locale.ROOT);
        if (keys.contains("enabled") && (text.equals("true") || text.equals("false"))) {
            return "Set '" + key + ".enabled' to " + text + " instead of '" + key + "' (in YAML, 'enabled: " + text
                    + "' one level below '" + lastPart(key) + "').";
        }
        return "Set one of the keys under '" + key + "' instead of '" + key + "' itself" + example(key, keys) + ".";
    }

    private static String emptyAction(String key, List<String> keys) {
        return "Remove '" + key + "' to keep its defaults, or set one of its keys" + example(key, keys) + ".";
    }

    private static String example(String key, List<String> keys) {
        return keys.isEmpty() ? "" : ", e.g. '" + key + "." + keys.get(0).replace(".*", "") + "'";
    }

    private static String lastPart(String key) {
        return key.substring(Math.max(key.lastIndexOf('.'), key.lastIndexOf(']')) + 1);
    }
}
