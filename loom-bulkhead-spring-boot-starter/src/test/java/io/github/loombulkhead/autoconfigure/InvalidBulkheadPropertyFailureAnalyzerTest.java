package io.github.loombulkhead.autoconfigure;

import java.time.Duration;
import java.util.Map;

import io.github.loombulkhead.BulkheadRegistry;
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
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Bad {@code loom.bulkhead.*} values fail startup with a failure analysis naming property, value and fix. */
@ExtendWith(OutputCaptureExtension.class)
class InvalidBulkheadPropertyFailureAnalyzerTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void zeroMaxConcurrentCallsOfAnInstance() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-concurrent-calls=0");
        assertThat(analysis.getDescription()).isEqualTo("""
                Invalid value for the bulkhead configuration property \
                'loom.bulkhead.instances.callee.max-concurrent-calls':

                    Property: loom.bulkhead.instances.callee.max-concurrent-calls
                    Value: "0"
                    Origin: "loom.bulkhead.instances.callee.max-concurrent-calls" from property source "test"
                    Reason: must be at least 1 but was 0""");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.max-concurrent-calls' to 1 "
                + "or more: the number of calls that may hold a permit at once.");
    }

    @Test
    void negativeQueueCapacityInTheDefaults() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.queue-capacity=-1");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.queue-capacity")
            .contains("Value: \"-1\"")
            .contains("Reason: must be 0 or more but was -1");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.defaults.queue-capacity' to 0 or more: the "
                + "number of calls that may wait for a permit (0 disables waiting).");
    }

    @Test
    void negativeMaxWaitOfThePerHostTemplateIsQuotedAsWritten() {
        FailureAnalysis analysis = analyze("loom.bulkhead.http.per-host.template.max-wait-duration=-5s");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.http.per-host.template.max-wait-duration")
            .contains("Value: \"-5s\"")
            .contains("Reason: must not be negative but was -5s")
            .doesNotContain("PT-5S");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.http.per-host.template.max-wait-duration' to a "
                + "duration of 0 or more, e.g. 30s (0 disables waiting).");
    }

    @Test
    void durationWrittenAsMillisecondsIsQuotedAsWritten() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-wait-duration=-1500ms");
        assertThat(analysis.getDescription()).contains("Value: \"-1500ms\"")
            .contains("Reason: must not be negative but was -1500ms");
        assertThat(analysis.getCause()).hasMessage("Invalid value '-1500ms' for property "
                + "'loom.bulkhead.instances.callee.max-wait-duration' (\"loom.bulkhead.instances.callee.max-wait-duration\" "
                + "from property source \"test\"): must not be negative but was -1500ms");
    }

    @Test
    void aDurationWithoutAUnitFailsInsteadOfBeingReadAsMilliseconds() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-wait-duration=30");
        assertThat(analysis.getDescription()).isEqualTo("""
                Invalid value for the bulkhead configuration property \
                'loom.bulkhead.instances.callee.max-wait-duration':

                    Property: loom.bulkhead.instances.callee.max-wait-duration
                    Value: "30"
                    Origin: "loom.bulkhead.instances.callee.max-wait-duration" from property source "test"
                    Reason: a duration needs a unit; a bare number would be read as milliseconds, so 30 would mean \
                30ms (a thousand times shorter than 30s)""");
        assertThat(analysis.getAction()).isEqualTo("Write 'loom.bulkhead.instances.callee.max-wait-duration' with a "
                + "unit: 30s or 30ms (or an ISO-8601 duration such as PT30S). Only 0 may be written without a unit.");
    }

    @ParameterizedTest
    @ValueSource(strings = { "loom.bulkhead.defaults.max-wait-duration", "loom.bulkhead.instances.callee.max-wait-duration",
            "loom.bulkhead.instances[Callee].max-wait-duration", "loom.bulkhead.instances.callee.cluster.lease-duration",
            "loom.bulkhead.instances.callee.cluster.idle-linger",
            "loom.bulkhead.http.per-host.template.max-wait-duration", "loom.bulkhead.server.retry-after",
            "loom.bulkhead.server.disconnect-check-interval" })
    void everyDurationPropertyNeedsAUnit(String key) {
        FailureAnalysis analysis = analyze(key + "=2");
        assertThat(analysis.getDescription()).contains("Property: " + key).contains("Value: \"2\"");
        assertThat(analysis.getAction()).startsWith("Write '" + key + "' with a unit: 2s or 2ms");
    }

    @Test
    void aDurationWithoutAUnitFromAnEnvironmentVariableFails() {
        this.contextRunner
            .withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(
                    new SystemEnvironmentPropertySource("test-systemEnvironment",
                            Map.of("LOOM_BULKHEAD_INSTANCES_CALLEE_MAXWAITDURATION", "45"))))
            .run((context) -> {
                assertThat(context).hasFailed();
                FailureAnalysis analysis = new InvalidBulkheadPropertyFailureAnalyzer()
                    .analyze(context.getStartupFailure());
                assertThat(analysis.getDescription())
                    .contains("Property: loom.bulkhead.instances.callee.max-wait-duration")
                    .contains("Value: \"45\"")
                    .contains("LOOM_BULKHEAD_INSTANCES_CALLEE_MAXWAITDURATION");
            });
    }

    @Test
    void aNegativeDurationWithoutAUnitFailsForTheUnit() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.max-wait-duration=-5");
        assertThat(analysis.getDescription()).contains("Value: \"-5\"").contains("a duration needs a unit");
    }

    @Test
    void zeroAndDurationsWithAUnitStart() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.defaults.max-wait-duration=0",
                    "loom.bulkhead.instances.callee.max-wait-duration=30s",
                    "loom.bulkhead.instances.other.max-wait-duration=PT0.5S", "loom.bulkhead.server.retry-after=2s",
                    "loom.bulkhead.server.disconnect-check-interval=0")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                assertThat(registry.bulkhead("callee").getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(30));
                assertThat(registry.bulkhead("other").getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofMillis(500));
            });
    }

    @Test
    void applicationStartupPrintsTheAnalysisOfADurationWithoutAUnitInAYamlFile(CapturedOutput output) {
        SpringApplication application = new SpringApplication(StartupApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException()
            .isThrownBy(() -> application.run("--spring.config.location=classpath:duration-without-unit.yml"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Property: loom.bulkhead.instances.callee.max-wait-duration")
            .contains("Value: \"30\"")
            .contains("Origin: class path resource [duration-without-unit.yml] - 4:22")
            .contains("Write 'loom.bulkhead.instances.callee.max-wait-duration' with a unit: 30s or 30ms");
    }

    @Test
    void badDefaultIsReportedUnderTheDefaultsKeyWhenAnInstanceInheritsIt() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.max-concurrent-calls=0",
                "loom.bulkhead.instances.callee.queue-capacity=5");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.max-concurrent-calls");
    }

    @Test
    void zeroMaxHosts() {
        FailureAnalysis analysis = analyze("loom.bulkhead.http.per-host.max-hosts=0");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.http.per-host.max-hosts")
            .contains("Value: \"0\"")
            .contains("Reason: must be at least 1");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.http.per-host.max-hosts' to 1 or more.");
    }

    @Test
    void blankTaskExecutionBulkheadName() {
        FailureAnalysis analysis = analyze("loom.bulkhead.task-execution.bulkhead= ");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.task-execution.bulkhead")
            .contains("Reason: a bulkhead name must not be blank");
    }

    @Test
    void adaptiveMinLimitAboveTheCeiling() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-concurrent-calls=8",
                "loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.min-limit=10",
                "loom.bulkhead.instances.callee.adaptive.initial-limit=10");
        assertThat(analysis.getDescription()).isEqualTo("""
                Invalid value for the bulkhead configuration property \
                'loom.bulkhead.instances.callee.adaptive.min-limit':

                    Property: loom.bulkhead.instances.callee.adaptive.min-limit
                    Value: "10"
                    Origin: "loom.bulkhead.instances.callee.adaptive.min-limit" from property source "test"
                    Reason: min-limit 10 is above the ceiling max-concurrent-calls 8 \
                ('loom.bulkhead.instances.callee.max-concurrent-calls')""");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.min-limit' to at "
                + "most 8, or raise 'loom.bulkhead.instances.callee.max-concurrent-calls'.");
    }

    @Test
    void adaptiveMinLimitOfTheDefaultsAboveTheCeilingOfAnInstance() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.enabled=true",
                "loom.bulkhead.defaults.adaptive.min-limit=5", "loom.bulkhead.instances.small.max-concurrent-calls=3");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.adaptive.min-limit")
            .contains("Value: \"5\"")
            .contains("Reason: min-limit 5 is above the ceiling max-concurrent-calls 3 "
                    + "('loom.bulkhead.instances.small.max-concurrent-calls')");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.defaults.adaptive.min-limit' to at most 3, "
                + "or set 'loom.bulkhead.instances.small.adaptive.min-limit' for this bulkhead alone, or raise "
                + "'loom.bulkhead.instances.small.max-concurrent-calls'.");
    }

    @Test
    void anInstanceNameWithCapitalsIsQuotedAsWrittenAndWithItsOrigin() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.Callee.max-wait-duration=-5s");
        assertThat(analysis.getDescription()).contains("Value: \"-5s\"")
            .contains("Origin: \"loom.bulkhead.instances.Callee.max-wait-duration\" from property source \"test\"");
    }

    @Test
    void anInheritedInitialLimitOutsideAnInstancesRangeNamesTheInstancesOwnKey() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.initial-limit=30",
                "loom.bulkhead.instances.c.adaptive.enabled=true", "loom.bulkhead.instances.c.adaptive.min-limit=40");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.adaptive.initial-limit");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.defaults.adaptive.initial-limit' to a value "
                + "from 40 to 100, or set 'loom.bulkhead.instances.c.adaptive.initial-limit' for this bulkhead alone.");
    }

    @Test
    void adaptiveInitialLimitAboveTheCeiling() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-concurrent-calls=400",
                "loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.initial-limit=500");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.instances.callee.adaptive.initial-limit")
            .contains("Value: \"500\"")
            .contains("Reason: initial-limit must be within min-limit 1 ('loom.bulkhead.defaults.adaptive.min-limit') "
                    + "and the ceiling max-concurrent-calls 400 ('loom.bulkhead.instances.callee.max-concurrent-calls')");
        assertThat(analysis.getAction())
            .isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.initial-limit' to a value from 1 to 400.");
    }

    @Test
    void aChosenInitialLimitOfFiftyAboveTheCeilingFailsLikeAnyOther() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-concurrent-calls=20",
                "loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.initial-limit=50");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.instances.callee.adaptive.initial-limit")
            .contains("Value: \"50\"")
            .contains("Reason: initial-limit must be within min-limit 1");
        assertThat(analysis.getAction())
            .isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.initial-limit' to a value from 1 to 20.");
    }

    @Test
    void anInitialLimitBelowOneFailsEvenWhileAdaptiveIsOff() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive.initial-limit=-7");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.instances.callee.adaptive.initial-limit")
            .contains("Value: \"-7\"");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.initial-limit' to 1 "
                + "or more: the limit before the first sample.");
    }

    @Test
    void aClusterBulkheadThatTheDefaultsMakeAdaptiveFailsNamingTheDefault() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.cluster.enabled=true");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.adaptive.enabled")
            .contains("Reason: an adaptive limit does not combine with a cluster limit "
                    + "('loom.bulkhead.instances.callee.cluster.enabled' is true)");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.enabled' to false, "
                + "or set 'loom.bulkhead.instances.callee.cluster.enabled' to false.");
    }

    @Test
    void anAdaptiveClusterBulkheadFailsNamingItsSwitch() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.cluster.enabled=true");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.instances.callee.adaptive.enabled")
            .contains("Value: \"true\"");
    }

    @Test
    void aClusterBulkheadThatCannotWaitFailsNamingWhatStopsIt() {
        FailureAnalysis queue = analyze("loom.bulkhead.defaults.queue-capacity=0",
                "loom.bulkhead.instances.callee.cluster.enabled=true");
        assertThat(queue.getDescription()).contains("Property: loom.bulkhead.defaults.queue-capacity")
            .contains("Reason: a cluster bulkhead's calls wait for leases from Redis, so it needs a queue");
        assertThat(queue.getAction()).startsWith("Set 'loom.bulkhead.instances.callee.queue-capacity' to 1 or more");
        FailureAnalysis wait = analyze("loom.bulkhead.instances.callee.max-wait-duration=0s",
                "loom.bulkhead.instances.callee.cluster.enabled=true");
        assertThat(wait.getDescription()).contains("Property: loom.bulkhead.instances.callee.max-wait-duration")
            .contains("Value: \"0s\"");
    }

    @Test
    void aStaticClusterBulkheadThatCanWaitPassesTheChecks() {
        // Only the cluster's own auto-configuration (not loaded here) needs Redis.
        this.contextRunner
            .withPropertyValues("loom.bulkhead.defaults.adaptive.enabled=true",
                    "loom.bulkhead.instances.callee.adaptive.enabled=false",
                    "loom.bulkhead.instances.callee.cluster.enabled=true")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void adaptiveInitialLimitBelowTheMinimum() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.enabled=true",
                "loom.bulkhead.defaults.adaptive.min-limit=10", "loom.bulkhead.defaults.adaptive.initial-limit=4");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.adaptive.initial-limit")
            .contains("Value: \"4\"")
            .contains("Reason: initial-limit must be within min-limit 10");
        assertThat(analysis.getAction())
            .isEqualTo("Set 'loom.bulkhead.defaults.adaptive.initial-limit' to a value from 10 to 100.");
    }

    @Test
    void adaptiveMinLimitBelowOne() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.min-limit=0");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.instances.callee.adaptive.min-limit")
            .contains("Value: \"0\"")
            .contains("Reason: minLimit must be at least 1 but was 0");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.min-limit' to 1 or "
                + "more: the lowest limit the algorithm sets.");
    }

    @Test
    void unknownAdaptiveAlgorithmIsReportedAsWritten() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.algorithm=Vegas");
        assertThat(analysis.getDescription()).isEqualTo("""
                Invalid value for the bulkhead configuration property \
                'loom.bulkhead.instances.callee.adaptive.algorithm':

                    Property: loom.bulkhead.instances.callee.adaptive.algorithm
                    Value: "Vegas"
                    Origin: "loom.bulkhead.instances.callee.adaptive.algorithm" from property source "test"
                    Reason: algorithm must be one of gradient, aimd but was 'Vegas'""");
        assertThat(analysis.getAction())
            .isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.algorithm' to gradient or aimd.");
    }

    @Test
    void adaptiveParameterOutOfRange() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.rtt-tolerance=0.5");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.instances.callee.adaptive.rtt-tolerance")
            .contains("Value: \"0.5\"")
            .contains("Reason: rttTolerance must be above 1 and at most 10 but was 0.5");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.rtt-tolerance' to a "
                + "ratio above 1 and at most 10, e.g. 1.15.");
    }

    @Test
    void unknownDropExceptionClassIsReportedAsWritten() {
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.adaptive.drop-exceptions="
                + "java.net.ConnectException,com.example.NoSuchException");
        assertThat(analysis.getDescription()).isEqualTo("""
                Invalid value for the bulkhead configuration property \
                'loom.bulkhead.instances.callee.adaptive.drop-exceptions[1]':

                    Property: loom.bulkhead.instances.callee.adaptive.drop-exceptions[1]
                    Value: "com.example.NoSuchException"
                    Origin: "loom.bulkhead.instances.callee.adaptive.drop-exceptions" from property source "test"
                    Reason: no class named 'com.example.NoSuchException' on the class path""");
        assertThat(analysis.getAction()).isEqualTo("Set 'loom.bulkhead.instances.callee.adaptive.drop-exceptions[1]' "
                + "to the fully qualified name of an exception class on the class path, e.g. java.net.ConnectException "
                + "(a nested class as Outer$Inner), or remove it.");
    }

    @Test
    void dropExceptionThatIsNotAnException() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.drop-exceptions[0]=java.lang.String");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.adaptive.drop-exceptions[0]")
            .contains("Value: \"java.lang.String\"")
            .contains("Origin: \"loom.bulkhead.defaults.adaptive.drop-exceptions[0]\" from property source \"test\"")
            .contains("Reason: java.lang.String is not an exception (a java.lang.Throwable)");
    }

    @Test
    void adaptiveLimitsOfABulkheadWithAStaticLimitAreNotCheckedAgainstItsCeiling() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.callee.max-concurrent-calls=3",
                    "loom.bulkhead.instances.callee.adaptive.min-limit=10",
                    "loom.bulkhead.instances.callee.adaptive.initial-limit=50")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void anUnknownAlgorithmFailsEvenWhileAdaptiveIsOff() {
        FailureAnalysis analysis = analyze("loom.bulkhead.defaults.adaptive.algorithm=gradient2");
        assertThat(analysis.getDescription()).contains("Property: loom.bulkhead.defaults.adaptive.algorithm")
            .contains("Value: \"gradient2\"");
    }

    @Test
    void applicationStartupPrintsTheAnalysis(CapturedOutput output) {
        SpringApplication application = new SpringApplication(StartupApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        assertThatException().isThrownBy(() -> application.run("--spring.threads.virtual.enabled=true",
                "--loom.bulkhead.instances.callee.max-concurrent-calls=0"));
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Property: loom.bulkhead.instances.callee.max-concurrent-calls")
            .contains("Value: \"0\"")
            .contains("Action:")
            .contains("Set 'loom.bulkhead.instances.callee.max-concurrent-calls' to 1 or more");
    }

    private FailureAnalysis analyze(String... properties) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        this.contextRunner.withPropertyValues(properties).run((context) -> {
            assertThat(context).hasFailed();
            analysis[0] = new InvalidBulkheadPropertyFailureAnalyzer().analyze(context.getStartupFailure());
        });
        assertThat(analysis[0]).as("failure analysis").isNotNull();
        return analysis[0];
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class StartupApplication {

    }
}
