package io.github.loombulkhead.autoconfigure;

import io.github.loombulkhead.BulkheadRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** A {@code loom.bulkhead.*} key that binds nothing fails startup, naming the key and the nearest valid one. */
@ExtendWith(OutputCaptureExtension.class)
class UnknownBulkheadPropertyFailureAnalyzerTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void misspeltKeyOfAnInstanceNamesTheKeyAndTheNearestOne() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-concurent-calls=10");
        assertThat(analysis.getDescription()).isEqualTo("""
                Unknown bulkhead configuration property 'loom.bulkhead.instances.callee.max-concurent-calls':

                    Property: loom.bulkhead.instances.callee.max-concurent-calls
                    Value: "10"
                    Origin: "loom.bulkhead.instances.callee.max-concurent-calls" from property source "test"
                    Reason: no such key; did you mean 'loom.bulkhead.instances.callee.max-concurrent-calls'?""");
        assertThat(analysis.getAction()).isEqualTo("""
                Rename 'loom.bulkhead.instances.callee.max-concurent-calls' to \
                'loom.bulkhead.instances.callee.max-concurrent-calls'.
                Every key is listed in the configuration reference (docs/configuration.md) and offered by IDE \
                completion.""");
    }

    @ParameterizedTest
    @CsvSource({
            "loom.bulkhead.enabeld, loom.bulkhead.enabled",
            "loom.bulkhead.propagate-contxt, loom.bulkhead.propagate-context",
            "loom.bulkhead.defaults.max-wait-durration, loom.bulkhead.defaults.max-wait-duration",
            "loom.bulkhead.default.fair, loom.bulkhead.defaults.fair",
            "loom.bulkhead.instances.callee.queue-capasity, loom.bulkhead.instances.callee.queue-capacity",
            "loom.bulkhead.instances[api.example.com].fiar, loom.bulkhead.instances[api.example.com].fair",
            "loom.bulkhead.http.groups.github.bulkhed, loom.bulkhead.http.groups.github.bulkhead",
            "loom.bulkhead.http.per-host.max-host, loom.bulkhead.http.per-host.max-hosts",
            "loom.bulkhead.http.per-host.template.max-concurrent-call, loom.bulkhead.http.per-host.template.max-concurrent-calls",
            "loom.bulkhead.http.pool.enable, loom.bulkhead.http.pool.enabled",
            "loom.bulkhead.task-executon.bulkhead, loom.bulkhead.task-execution.bulkhead",
            "loom.bulkhead.server.enabeld, loom.bulkhead.server.enabled",
            "loom.bulkhead.server.retry-afer, loom.bulkhead.server.retry-after" })
    void misspeltKeyOfEveryGroupIsNamedWithTheNearestOne(String typo, String nearest) {
        FailureAnalysis analysis = analyze(typo + "=true");
        assertThat(analysis.getDescription()).contains("Property: " + typo + "\n")
            .contains("Reason: no such key; did you mean '" + nearest + "'?");
        assertThat(analysis.getAction()).startsWith("Rename '" + typo + "' to '" + nearest + "'.");
    }

    @ParameterizedTest
    @CsvSource({
            "loom.bulkhead.instances.callee.adaptive.max-limit, loom.bulkhead.instances.callee.max-concurrent-calls",
            "loom.bulkhead.instances.callee.adaptive.maxLimit, loom.bulkhead.instances.callee.max-concurrent-calls",
            "loom.bulkhead.defaults.adaptive.ceiling, loom.bulkhead.defaults.max-concurrent-calls",
            "loom.bulkhead.http.per-host.template.adaptive.max-concurrent-calls, "
                    + "loom.bulkhead.http.per-host.template.max-concurrent-calls" })
    void aCeilingWrittenUnderAdaptiveNamesTheBulkheadsMaxConcurrentCalls(String written, String ceiling) {
        FailureAnalysis analysis = analyze(written + "=400");
        assertThat(analysis.getDescription()).contains("Reason: no such key; with adaptive on, the bulkhead's own '"
                + ceiling + "' is the ceiling the algorithm never exceeds");
        assertThat(analysis.getAction()).doesNotContain("min-limit").startsWith("Replace '");
    }

    @Test
    void theOppositeOfAKeyIsNoTypoOfIt() {
        // A typo under adaptive still finds its key; the opposite of a key (min-limit for max-limit) is no typo.
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive.initial-limt=10",
                "loom.bulkhead.instances.callee.adaptive.enabled=true");
        assertThat(analysis.getDescription()).contains("did you mean 'loom.bulkhead.instances.callee.adaptive.initial-limit'?");
        assertThat(new PropertyKeys(ConfigurationPropertyName.of("loom.bulkhead"), LoomBulkheadProperties.class)
            .nearest(ConfigurationPropertyName.of("loom.bulkhead.instances.callee.adaptive.max-limit")))
            .as("min-limit is not a typo of max-limit")
            .isNull();
    }

    @Test
    void nameWithDotsWithoutBracketsIsShownWithBrackets() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.api.example.com.max-concurrent-calls=20");
        assertThat(analysis.getDescription()).contains("Reason: no such key; a name containing dots goes in "
                + "brackets: did you mean 'loom.bulkhead.instances[api.example.com].max-concurrent-calls'?");
    }

    @Test
    void aTypoInsideAServerRouteNamesTheRoutesKey() {
        FailureAnalysis analysis = analyze("loom.bulkhead.server.routes[0].patern=/reports/**",
                "loom.bulkhead.server.routes[0].bulkhead=reports");
        assertThat(analysis.getDescription())
            .contains("Reason: no such key; did you mean 'loom.bulkhead.server.routes[0].pattern'?");
    }

    @Test
    void aListIndexIsANumberAndNeedsNoBracketsAdvice() {
        FailureAnalysis unbracketed = analyze("loom.bulkhead.server.routes.0.patern=/reports/**",
                "loom.bulkhead.server.routes.0.bulkhead=reports");
        assertThat(unbracketed.getDescription())
            .contains("Reason: no such key; did you mean 'loom.bulkhead.server.routes[0].pattern'?");
        FailureAnalysis named = analyze("loom.bulkhead.server.routes.reports.pattern=/reports/**");
        assertThat(named.getDescription()).doesNotContain("empty value").doesNotContain("routes[reports]");
    }

    @Test
    void aValidKeyWithAnEmptyValueSaysSoInsteadOfNoSuchKey() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-wait-duration=");
        assertThat(analysis.getDescription()).doesNotContain("no such key")
            .startsWith("Bulkhead configuration property 'loom.bulkhead.instances.callee.max-wait-duration' has an "
                    + "empty value:")
            .contains("Reason: the key is valid but its value is empty, which Spring Boot binds as no value");
        assertThat(analysis.getAction()).contains("Give 'loom.bulkhead.instances.callee.max-wait-duration' a value, "
                + "or remove it to keep the default.");
    }

    @Test
    void keyOfAnInstanceSetDirectlyUnderThePrefixListsTheKeysEndingLikeIt() {
        FailureAnalysis analysis = analyze("loom.bulkhead.max-concurrent-calls=20");
        assertThat(analysis.getDescription()).contains("Reason: no such key; the valid keys ending like it are "
                + "loom.bulkhead.defaults.max-concurrent-calls, loom.bulkhead.instances.<instance>.max-concurrent-calls, "
                + "loom.bulkhead.http.per-host.template.max-concurrent-calls");
    }

    @Test
    void keyWithNothingNearListsTheKeysOfItsParent() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.limit=20");
        assertThat(analysis.getDescription()).contains("Reason: no such key; 'loom.bulkhead.instances.callee' has "
                + "the keys max-concurrent-calls, max-wait-duration, queue-capacity, fair");
        assertThat(analysis.getAction()).startsWith("Remove 'loom.bulkhead.instances.callee.limit' or use one of the "
                + "keys of 'loom.bulkhead.instances.callee'.");
    }

    @Test
    void unknownTopLevelKeyListsTheTopLevelKeys() {
        FailureAnalysis analysis = analyze("loom.bulkhead.limits=20");
        assertThat(analysis.getDescription()).contains("Reason: no such key; 'loom.bulkhead' has the keys enabled, "
                + "propagate-context, defaults.*, instances.*, http.*, task-execution.*, cluster.*, server.*");
    }

    @Test
    void everyUnknownKeyIsReported() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.a.max-concurent-calls=1",
                "loom.bulkhead.instances.b.fiar=true");
        assertThat(analysis.getDescription()).startsWith("Unknown bulkhead configuration properties:\n")
            .contains("Property: loom.bulkhead.instances.a.max-concurent-calls")
            .contains("Property: loom.bulkhead.instances.b.fiar");
        assertThat(analysis.getAction()).contains(
                "Rename 'loom.bulkhead.instances.a.max-concurent-calls' to 'loom.bulkhead.instances.a.max-concurrent-calls'.\n"
                        + "Rename 'loom.bulkhead.instances.b.fiar' to 'loom.bulkhead.instances.b.fair'.\n");
    }

    @Test
    void validKeysInEveryNotationStillBind() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances[api.example.com].max-concurrent-calls=20",
                    "loom.bulkhead.instances.callee.maxConcurrentCalls=7", "loom.bulkhead.http.groups.g.enabled=false",
                    "loom.bulkhead.http.per-host.template.fair=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                assertThat(registry.resolveConfig("api.example.com").getMaxConcurrentCalls()).isEqualTo(20);
                assertThat(registry.resolveConfig("callee").getMaxConcurrentCalls()).isEqualTo(7);
            });
    }

    @Test
    void systemPropertiesAndEnvironmentVariablesAreNotChecked() {
        // Boot checks only the application's own property sources: a -D flag of another tool may share the prefix.
        this.contextRunner.withSystemProperties("loom.bulkhead.seed=42").run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void applicationStartupPrintsTheAnalysisWithTheLineOfTheFile(CapturedOutput output) {
        SpringApplication application = new SpringApplication(StartupApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException()
            .isThrownBy(() -> application.run("--spring.config.location=classpath:unknown-bulkhead-key.yml"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Unknown bulkhead configuration property 'loom.bulkhead.instances.callee.max-concurent-calls'")
            .contains("Origin: class path resource [unknown-bulkhead-key.yml] - 4:24")
            .contains("Rename 'loom.bulkhead.instances.callee.max-concurent-calls' to "
                    + "'loom.bulkhead.instances.callee.max-concurrent-calls'.");
    }

    private FailureAnalysis analyze(String... properties) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        this.contextRunner.withPropertyValues(properties).run((context) -> {
            assertThat(context).hasFailed();
            analysis[0] = new UnknownBulkheadPropertyFailureAnalyzer().analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        return analysis[0];
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class StartupApplication {

    }
}
