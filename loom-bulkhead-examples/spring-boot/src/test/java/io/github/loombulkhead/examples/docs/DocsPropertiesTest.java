package io.github.loombulkhead.examples.docs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;

import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every YAML and properties block of README.md and docs/*.md that sets {@code loom.bulkhead} keys starts the
 * starter: unknown keys and bad values fail startup, so a renamed or misspelt key in the docs fails this test.
 */
class DocsPropertiesTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    static Stream<Markdown.Block> configurationBlocks() {
        return Markdown.blocks()
            .stream()
            .filter((block) -> List.of("yaml", "properties").contains(block.language())
                    && block.text().matches("(?sm).*^loom[.:].*"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("configurationBlocks")
    void blockStartsTheStarter(Markdown.Block block) throws IOException {
        PropertySourceLoader loader = block.language().equals("yaml") ? new YamlPropertySourceLoader()
                : new PropertiesPropertySourceLoader();
        List<PropertySource<?>> sources = loader.load(block.where(),
                new ByteArrayResource(block.text().getBytes(StandardCharsets.UTF_8), block.where()));
        this.contextRunner
            .withInitializer((context) -> sources.forEach(context.getEnvironment().getPropertySources()::addFirst))
            .run((context) -> assertThat(context).as(block.where()).hasNotFailed());
    }

    @Test
    void readmeHttpClientsAndMigrationShowConfiguration() {
        // README.md's quick start, two blocks of docs/http-clients.md and two of docs/migration.md at least.
        assertThat(configurationBlocks().map(Markdown.Block::where)).hasSizeGreaterThanOrEqualTo(5);
    }
}
