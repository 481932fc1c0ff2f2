package io.github.loombulkhead.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A value written on a key that holds a group of keys ({@code adaptive: true} for {@code adaptive.enabled: true})
 * fails startup naming the key and the one meant.
 */
@ExtendWith(OutputCaptureExtension.class)
class GroupValueFailureAnalyzerTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void adaptiveWrittenAsASwitchNamesItsEnabledKey() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive=true");
        assertThat(analysis.getDescription()).isEqualTo("""
                Bulkhead configuration property 'loom.bulkhead.instances.callee.adaptive' holds a group of keys, \
                not a value:

                    Property: loom.bulkhead.instances.callee.adaptive
                    Value: "true"
                    Origin: "loom.bulkhead.instances.callee.adaptive" from property source "test"
                    Reason: 'loom.bulkhead.instances.callee.adaptive' takes no value of its own; its keys are enabled, \
                algorithm, initial-limit, min-limit, rtt-tolerance, increase-ratio, window-samples, drop-backoff, \
                drop-tolerance, backoff-ratio, drop-exceptions""");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.enabled' to true "
                + "instead of 'loom.bulkhead.instances.callee.adaptive' (in YAML, 'enabled: true' one level below "
                + "'adaptive').");
    }

    @ParameterizedTest
    @ValueSource(strings = { "loom.bulkhead.defaults.adaptive", "loom.bulkhead.http.per-host.template.adaptive",
            "loom.bulkhead.instances[api.example.com].adaptive", "loom.bulkhead.instances.callee.cluster",
            "loom.bulkhead.http.per-host", "loom.bulkhead.http.pool", "loom.bulkhead.task-execution",
            "loom.bulkhead.server" })
    void everySwitchedGroupWrittenAsASwitchNamesItsEnabledKey(String group) {
        FailureAnalysis analysis = analyze(group + "=false");
        assertThat(analysis.getDescription()).startsWith("Bulkhead configuration property '" + group
                + "' holds a group of keys, not a value:").contains("Property: " + group + "\n", "Value: \"false\"");
        assertThat(analysis.getAction()).startsWith("Set '" + group + ".enabled' to false instead of '" + group + "'");
    }

    @Test
    void aSystemPropertyFailsTheSameWay() {
        // Unlike an unknown key, a value on a group fails binding from every source, so it is explained for each.
        Environment[] environment = new Environment[1];
        this.contextRunner.withSystemProperties("loom.bulkhead.instances.callee.adaptive=true")
            .withInitializer((context) -> environment[0] = context.getEnvironment())
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(new GroupValueFailureAnalyzer(environment[0]).analyze(context.getStartupFailure())
                    .getAction()).startsWith("Set 'loom.bulkhead.instances.callee.adaptive.enabled' to true instead");
            });
    }

    @Test
    void aGroupWithoutASwitchListsItsKeys() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults=50");
        assertThat(analysis.getDescription()).contains("Reason: 'loom.bulkhead.defaults' takes no value of its own; "
                + "its keys are max-concurrent-calls, max-wait-duration, queue-capacity, fair, adaptive.*");
        assertThat(analysis.getAction()).isEqualTo("Set one of the keys under 'loom.bulkhead.defaults' instead of "
                + "'loom.bulkhead.defaults' itself, e.g. 'loom.bulkhead.defaults.max-concurrent-calls'.");
    }

    @Test
    void anEmptyGroupSaysSoAndHowToFixIt() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.cluster=");
        assertThat(analysis.getDescription()).isEqualTo("""
                Bulkhead configuration property 'loom.bulkhead.instances.callee.cluster' holds a group of keys but is \
                empty:

                    Property: loom.bulkhead.instances.callee.cluster
                    Value: ""
                    Origin: "loom.bulkhead.instances.callee.cluster" from property source "test"
                    Reason: 'loom.bulkhead.instances.callee.cluster' takes no value of its own (a YAML key without \
                keys below it, e.g. all commented out, is read as an empty value); its keys are enabled, \
                lease-duration, idle-linger, fallback""");
        assertThat(analysis.getAction()).isEqualTo("Remove 'loom.bulkhead.instances.callee.cluster' to keep its "
                + "defaults, or set one of its keys, e.g. 'loom.bulkhead.instances.callee.cluster.enabled'.");
    }

    @Test
    void anEmptyTopLevelGroupToo() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults=");
        assertThat(analysis.getDescription()).startsWith("Bulkhead configuration property 'loom.bulkhead.defaults' "
                + "holds a group of keys but is empty:");
        assertThat(analysis.getAction()).isEqualTo("Remove 'loom.bulkhead.defaults' to keep its defaults, or set one "
                + "of its keys, e.g. 'loom.bulkhead.defaults.max-concurrent-calls'.");
    }

    @Test
    void anEmptyInstanceOrGroupEntryStillBinds() {
        // A map entry may be empty: it names a bulkhead (or HTTP group) that keeps the defaults.
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.callee=", "loom.bulkhead.http.groups.g=")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void aYamlGroupWhoseKeysAreCommentedOutIsExplainedAtStartup(CapturedOutput output) {
        SpringApplication application = new SpringApplication(StartupApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException()
            .isThrownBy(() -> application.run("--spring.config.location=classpath:adaptive-left-empty.yml"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Bulkhead configuration property 'loom.bulkhead.instances.callee.adaptive' holds a group of "
                    + "keys but is empty")
            .contains("Origin: class path resource [adaptive-left-empty.yml] - 5:14")
            .contains("Remove 'loom.bulkhead.instances.callee.adaptive' to keep its defaults, or set one of its "
                    + "keys, e.g. 'loom.bulkhead.instances.callee.adaptive.enabled'.")
            .doesNotContain("No setter found");
    }

    @Test
    void otherBindFailuresAreLeftToTheirAnalyzers() {
        Environment[] environment = new Environment[1];
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.callee.adaptive.min-limit=abc")
            .withInitializer((context) -> environment[0] = context.getEnvironment())
            .run((context) -> {
                assertThat(context).hasFailed();
                assertThat(new GroupValueFailureAnalyzer(environment[0]).analyze(context.getStartupFailure()))
                    .isNull();
            });
    }

    @Test
    void applicationStartupPrintsTheAnalysisWithTheLineOfTheFile(CapturedOutput output) {
        SpringApplication application = new SpringApplication(StartupApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException()
            .isThrownBy(() -> application.run("--spring.config.location=classpath:adaptive-as-a-value.yml"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Bulkhead configuration property 'loom.bulkhead.instances.callee.adaptive' holds a group of "
                    + "keys, not a value")
            .contains("Origin: class path resource [adaptive-as-a-value.yml] - 5:15")
            .contains("Set 'loom.bulkhead.instances.callee.adaptive.enabled' to true instead of "
                    + "'loom.bulkhead.instances.callee.adaptive'")
            .doesNotContain("No converter found");
    }

    private FailureAnalysis analyze(String... properties) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        Environment[] environment = new Environment[1];
        this.contextRunner.withPropertyValues(properties)
            .withInitializer((context) -> environment[0] = context.getEnvironment())
            .run((context) -> {
                assertThat(context).hasFailed();
                analysis[0] = new GroupValueFailureAnalyzer(environment[0]).analyze(context.getStartupFailure());
            });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        return analysis[0];
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class StartupApplication {

    }
}
