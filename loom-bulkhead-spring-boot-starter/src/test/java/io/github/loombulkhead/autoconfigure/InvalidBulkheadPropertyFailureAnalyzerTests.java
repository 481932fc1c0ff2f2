package io.github.loombulkhead.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/** Bad {@code loom.bulkhead.*} values fail startup with a failure analysis naming property, value and fix. */
@ExtendWith(OutputCaptureExtension.class)
class InvalidBulkheadPropertyFailureAnalyzerTests {

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
        FailureAnalysis analysis = analyze("loom.bulkhead.instances.callee.max-wait-duration=-1500");
        assertThat(analysis.getDescription()).contains("Value: \"-1500\"")
            .contains("Reason: must not be negative but was -1500");
        assertThat(analysis.getCause()).hasMessage("Invalid value '-1500' for property "
                + "'loom.bulkhead.instances.callee.max-wait-duration' (\"loom.bulkhead.instances.callee.max-wait-duration\" "
                + "from property source \"test\"): must not be negative but was -1500");
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
