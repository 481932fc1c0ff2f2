package io.github.loombulkhead.autoconfigure;

import java.util.function.Function;

import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.Environment;

/** Finds where a property was set (file and line) so errors can point at it. */
final class PropertyOrigins implements Function<String, String> {

    private final Environment environment;

    PropertyOrigins(Environment environment) {
        this.environment = environment;
    }

    @Override
    public String apply(String key) {
        if (!ConfigurationPropertyName.isValid(key)) {
            return null;
        }
        ConfigurationPropertyName name = ConfigurationPropertyName.of(key);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return (property.getOrigin() != null) ? property.getOrigin().toString() : null;
            }
        }
        return null;
    }
}
