package io.github.loombulkhead.autoconfigure;

import java.util.function.Function;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/**
 * Finds a property as the user set it: its value as written (e.g. {@code -5s}, not the bound {@code PT-5S})
 * and where (file and line), so errors can quote and point at it.
 */
final class PropertyOrigins implements Function<String, ConfigurationProperty> {

    private final Environment environment;

    PropertyOrigins(Environment environment) {
        this.environment = environment;
    }

    /** The property called {@code key} from the source that wins, or {@code null} if it is not set. */
    @Override
    public ConfigurationProperty apply(String key) {
        if (!ConfigurationPropertyName.isValid(key)) {
            return null;
        }
        ConfigurationProperty property = find(ConfigurationPropertyName.of(key));
        int open = key.indexOf('[');
        int close = key.indexOf(']', open + 1);
        if (property == null && open >= 0 && close > open && key.substring(open + 1, close).indexOf('.') < 0) {
            // A map key without dots may have been written without brackets, e.g. instances.Callee.
            property = find(ConfigurationPropertyName.adapt(key.replace("[", ".").replace("]", ""), '.'));
        }
        return property;
    }

    private ConfigurationProperty find(ConfigurationPropertyName name) {
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property;
            }
        }
        return null;
    }
}
