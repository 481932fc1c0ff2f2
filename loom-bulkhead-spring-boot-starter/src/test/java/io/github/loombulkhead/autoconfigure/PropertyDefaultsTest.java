package io.github.loombulkhead.autoconfigure;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.BulkheadConfig;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The defaults of {@link LoomBulkheadProperties} are the core's, and the defaults the IDE shows (written into the
 * additional metadata, since the configuration processor cannot read a constant of another class) are the same.
 */
class PropertyDefaultsTest {

    private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

    @Test
    void theDefaultsAreTheCoresDefaults() {
        BulkheadConfig mapped = new BulkheadConfigMapper(new LoomBulkheadProperties(), (key) -> null).defaults();
        BulkheadConfig core = BulkheadConfig.custom().build();
        assertThat(mapped.getMaxConcurrentCalls()).isEqualTo(core.getMaxConcurrentCalls());
        assertThat(mapped.getQueueCapacity()).isEqualTo(core.getQueueCapacity());
        assertThat(mapped.getMaxWaitDuration()).isEqualTo(core.getMaxWaitDuration());
        assertThat(mapped.isFair()).isEqualTo(core.isFair());
    }

    @Test
    void everyDefaultInTheMetadataBindsToThePropertiesOwnDefault() throws IOException {
        List<Map<String, Object>> properties = JsonPath.read(Files.readString(METADATA), "$.properties[*]");
        Map<String, Object> defaults = new HashMap<>();
        for (Map<String, Object> property : properties) {
            String name = (String) property.get("name");
            Object value = property.get("defaultValue");
            if (name.startsWith("loom.bulkhead.") && value != null) {
                defaults.put(name, (value instanceof List<?> list) ? String.join(",", list.stream().map(String::valueOf).toList())
                        : String.valueOf(value));
            }
        }
        assertThat(defaults).containsKeys("loom.bulkhead.defaults.max-concurrent-calls",
                "loom.bulkhead.defaults.max-wait-duration", "loom.bulkhead.defaults.adaptive.initial-limit");
        LoomBulkheadProperties fromMetadata = new Binder(new MapConfigurationPropertySource(defaults))
            .bind("loom.bulkhead", Bindable.ofInstance(new LoomBulkheadProperties()))
            .get();
        assertThat(fromMetadata).usingRecursiveComparison().isEqualTo(new LoomBulkheadProperties());
    }
}
