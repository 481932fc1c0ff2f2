package io.github.loombulkhead.autoconfigure;

import java.util.List;
import java.util.Set;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Turns a {@code loom.bulkhead.*} key that binds nothing (a typo such as {@code max-concurent-calls}) into a
 * startup report naming the key, where it was set and the nearest valid key. Runs before Spring Boot's
 * generic report of unbound properties, which names no valid key.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class UnknownBulkheadPropertyFailureAnalyzer extends AbstractFailureAnalyzer<UnboundConfigurationPropertiesException> {

    /** Names of a ceiling written under {@code adaptive}, where it is not (in Boot's uniform form). */
    private static final Set<String> CEILING_NAMES = Set.of("maxlimit", "maximumlimit", "ceiling",
            "maxconcurrentcalls");


    private static final String REFERENCE = "Every key is listed in the configuration reference (docs/configuration.md) "
            + "and offered by IDE completion.";

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnboundConfigurationPropertiesException cause) {
        BindException bind = findCause(rootFailure, BindException.class);
        if (bind == null || bind.getTarget().getType().resolve() != LoomBulkheadProperties.class) {
            return null;
        }
        PropertyKeys keys = new PropertyKeys(bind.getName(), LoomBulkheadProperties.class);
        Set<ConfigurationProperty> unknown = cause.getUnboundProperties();
        ConfigurationProperty first = unknown.iterator().next();
        StringBuilder description = new StringBuilder((unknown.size() > 1)
                ? "Unknown bulkhead configuration properties:\n"
                : isEmptyValueOfAKey(keys, first)
                        ? "Bulkhead configuration property '" + first.getName() + "' has an empty value:\n"
                        : "Unknown bulkhead configuration property '" + first.getName() + "':\n");
        StringBuilder action = new StringBuilder();
        for (ConfigurationProperty property : unknown) {
            Advice advice = advise(keys, property);
            description.append("\n    Property: ").append(property.getName())
                .append("\n    Value: \"").append(property.getValue()).append('"');
            if (property.getOrigin() != null) {
                description.append("\n    Origin: ").append(property.getOrigin());
            }
            description.append("\n    Reason: ").append(advice.reason()).append('\n');
            action.append(advice.action()).append('\n');
        }
        action.append(REFERENCE);
        return new FailureAnalysis(description.toString().stripTrailing(), action.toString(), cause);
    }

    private static Advice advise(PropertyKeys keys, ConfigurationProperty property) {
        String key = property.getName().toString();
        ConfigurationPropertyName name = property.getName();
        if (isEmptyValueOfAKey(keys, property)) {
            // Spring Boot binds an empty value ("key=", a YAML key with only a comment) as no value: unbound.
            return new Advice("the key is valid but its value is empty, which Spring Boot binds as no value",
                    "Give '" + key + "' a value, or remove it to keep the default.");
        }
        int elements = name.getNumberOfElements();
        if (elements > 2 && name.getElement(elements - 2, Form.UNIFORM).equals("adaptive")
                && CEILING_NAMES.contains(name.getElement(elements - 1, Form.UNIFORM))) {
            String maxConcurrentCalls = name.chop(elements - 2).append("max-concurrent-calls").toString();
            return new Advice("no such key; with adaptive on, the bulkhead's own '" + maxConcurrentCalls
                    + "' is the ceiling the algorithm never exceeds",
                    "Replace '" + key + "' with '" + maxConcurrentCalls + "'.");
        }
        String nearest = keys.nearest(property.getName());
        if (nearest != null) {
            String reason = (nearest.matches(".*\\[[^]]*\\.[^]]*].*") && !key.contains("["))
                    ? "no such key; a name containing dots goes in brackets: did you mean '" + nearest + "'?"
                    : "no such key; did you mean '" + nearest + "'?";
            return new Advice(reason,
                    "Rename '" + key + "' to '" + nearest + "'.");
        }
        List<String> endingLike = keys.endingLike(property.getName());
        if (!endingLike.isEmpty()) {
            return new Advice("no such key; the valid keys ending like it are " + String.join(", ", endingLike),
                    "Replace '" + key + "' with one of " + String.join(", ", endingLike) + ".");
        }
        PropertyKeys.Siblings siblings = keys.siblings(property.getName());
        return new Advice("no such key; '" + siblings.parent() + "' has the keys " + String.join(", ", siblings.names()),
                "Remove '" + key + "' or use one of the keys of '" + siblings.parent() + "'.");
    }

    /** Whether {@code property} is a valid key that Spring Boot left unbound because its value is empty. */
    private static boolean isEmptyValueOfAKey(PropertyKeys keys, ConfigurationProperty property) {
        Object value = property.getValue();
        return (value == null || value.toString().isEmpty()) && keys.isKey(property.getName());
    }

    private record Advice(String reason, String action) {
    }
}
