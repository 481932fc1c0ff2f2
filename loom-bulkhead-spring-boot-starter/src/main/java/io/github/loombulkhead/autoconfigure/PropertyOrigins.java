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
        ConfigurationPropertyName name = ConfigurationPropertyName.of(key);
        for (ConfigurationPropertySource source : ConfigurationPropertySources.get(this.environment)) {
            ConfigurationProperty property = source.getConfigurationProperty(name);
            if (property != null) {
                return property;
            }
        }
        return null;
    }
}
