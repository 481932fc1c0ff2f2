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
 * Turns a value written on a {@code loom.bulkhead.*} key that holds a group of keys, such as
 * {@code adaptive: true} for {@code adaptive.enabled: true}, into a startup report naming the key, its value and
 * the key meant, instead of Spring Boot's "No converter found capable of converting from type [java.lang.String]"
 * to a properties class.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class GroupValueFailureAnalyzer extends AbstractFailureAnalyzer<ConverterNotFoundException> {

    private static final ConfigurationPropertyName PREFIX = ConfigurationPropertyName.of("loom.bulkhead");

    private static final String PACKAGE = "io.github.loombulkhead.autoconfigure.";

    /** Finds the value as written and where; Spring Boot's binder does not keep it for this failure. */
    private final Function<String, ConfigurationProperty> sources;

    /** @param environment the failed application's environment, or {@code null} when it has none */
    GroupValueFailureAnalyzer(@Nullable Environment environment) {
        this.sources = (environment != null) ? new PropertyOrigins(environment) : (key) -> null;
    }

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, ConverterNotFoundException cause) {
        BindException bind = findCause(rootFailure, BindException.class);
        Class<?> target = (bind != null) ? bind.getTarget().getType().resolve() : null;
        if (target == null || !target.getName().startsWith(PACKAGE) || target.isEnum()
                || !PREFIX.isAncestorOf(bind.getName())) {
            return null;
        }
        String key = bind.getName().toString();
        ConfigurationProperty property = (bind.getProperty() != null) ? bind.getProperty() : this.sources.apply(key);
        Object value = (property != null) ? property.getValue() : null;
        PropertyKeys.Siblings group = new PropertyKeys(PREFIX, LoomBulkheadProperties.class)
            .siblings(bind.getName().append("x"));
        List<String> keys = (group != null && group.parent().equals(key)) ? group.names() : List.of();
        StringBuilder description = new StringBuilder("Bulkhead configuration property '").append(key)
            .append("' holds a group of keys, not a value:\n\n    Property: ").append(key);
        if (value != null) {
            description.append("\n    Value: \"").append(value).append('"');
        }
        if (property != null && property.getOrigin() != null) {
            description.append("\n    Origin: ").append(property.getOrigin());
        }
        description.append("\n    Reason: '").append(key).append("' takes no value of its own")
            .append(keys.isEmpty() ? "" : "; its keys are " + String.join(", ", keys));
        return new FailureAnalysis(description.toString(), action(key, value, keys), cause);
    }

    private static String action(String key, Object value, List<String> keys) {
        String text = (value != null) ? value.toString().trim().toLowerCase(Locale.ROOT) : "";
        if (keys.contains("enabled") && (text.equals("true") || text.equals("false"))) {
            return "Set '" + key + ".enabled' to " + text + " instead of '" + key + "' (in YAML, 'enabled: " + text
                    + "' one level below '" + key.substring(key.lastIndexOf('.') + 1) + "').";
        }
        if (keys.isEmpty()) {
            return "Set one of the keys under '" + key + "' instead of '" + key + "' itself.";
        }
        String first = keys.get(0).replace(".*", "");
        return "Set one of the keys under '" + key + "' instead of '" + key + "' itself, e.g. '" + key + "." + first
                + "'.";
    }
}
