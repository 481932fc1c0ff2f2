package io.github.loombulkhead.autoconfigure;

import java.util.Map;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.Bulkhead;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bulkhead names in configuration and in code that do not meet are reported at startup, instead of a bulkhead
 * silently running with the defaults.
 */
@ExtendWith(OutputCaptureExtension.class)
class BulkheadNamesReporterTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void aDottedNameWithoutBracketsFailsStartupInsteadOfBindingNothing() {
        // Spring Boot reads this as the entry 'my' with a setting 'service.max-concurrent-calls', which does not exist.
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.my.service.max-concurrent-calls=5")
            .withBean(DottedNameService.class)
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .hasMessageContaining("loom.bulkhead.instances.my.service.max-concurrent-calls"));
    }

    @Test
    void anEntryForTheFirstPartOfADottedNameIsReported(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.my.max-concurrent-calls=5")
            .withBean(DottedNameService.class)
            .run((context) -> assertThat(output)
                .containsOnlyOnce("Bulkhead 'my' is configured (loom.bulkhead.instances.my) but nothing refers to it")
                .containsOnlyOnce("Bulkhead 'my.service' has no entry under loom.bulkhead.instances and runs with "
                        + "loom.bulkhead.defaults, but similarly named entries exist: [loom.bulkhead.instances.my]."));
    }

    @Test
    void anUpperCaseNameConfiguredByAnEnvironmentVariableIsReported(CapturedOutput output) {
        this.contextRunner
            .withInitializer((context) -> context.getEnvironment().getPropertySources().replace(
                    StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                    new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                            Map.of("LOOM_BULKHEAD_INSTANCES_MYSERVICE_MAXCONCURRENTCALLS", "5"))))
            .withBean(UpperCaseNameService.class)
            .run((context) -> {
                // The environment variable binds the entry 'myservice': it cannot spell 'MyService'.
                assertThat(context.getBean(LoomBulkheadProperties.class).getInstances()).containsOnlyKeys("myservice");
                assertThat(context.getBean(BulkheadRegistry.class).bulkhead("MyService").getLimit()).isEqualTo(100);
                assertThat(output)
                    .containsOnlyOnce("Bulkhead 'myservice' is configured (loom.bulkhead.instances.myservice) but "
                            + "nothing refers to it")
                    .containsOnlyOnce("Similar names in use: [MyService]")
                    .containsOnlyOnce("Bulkhead 'MyService' has no entry under loom.bulkhead.instances and runs with "
                            + "loom.bulkhead.defaults, but similarly named entries exist: "
                            + "[loom.bulkhead.instances.myservice].");
            });
    }

    @Test
    void aBulkheadCreatedLaterWithASimilarNameIsReportedWhenCreated(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.reports.max-concurrent-calls=5")
            .withBean(ReportsService.class)
            .run((context) -> {
                assertThat(output).doesNotContain("similarly named entries exist");
                context.getBean(BulkheadRegistry.class).bulkhead("Reports");
                assertThat(output).containsOnlyOnce("Bulkhead 'Reports' has no entry under loom.bulkhead.instances "
                        + "and runs with loom.bulkhead.defaults, but similarly named entries exist: "
                        + "[loom.bulkhead.instances.reports].");
            });
    }

    @Test
    void aDottedNameInBracketsBindsAndIsNotReported(CapturedOutput output) {
        this.contextRunner
            .withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(
                    "brackets", Map.of("loom.bulkhead.instances[my.service].max-concurrent-calls", "5"))))
            .withBean(DottedNameService.class)
            .run((context) -> {
                assertThat(context.getBean(BulkheadRegistry.class).bulkhead("my.service").getLimit()).isEqualTo(5);
                assertThat(output).doesNotContain("nothing refers to it").doesNotContain("similarly named");
            });
    }

    @Test
    void entriesUsedByAnnotationsGroupsExecutorsAndHostsAreNotReported(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.reports.max-concurrent-calls=5",
                    "loom.bulkhead.instances.grouped.max-concurrent-calls=5", "loom.bulkhead.http.groups.g.bulkhead=grouped",
                    "loom.bulkhead.instances.application-task-executor.max-concurrent-calls=5",
                    "loom.bulkhead.task-execution.enabled=true",
                    "loom.bulkhead.instances.batch.max-concurrent-calls=5",
                    "loom.bulkhead.http.per-host.enabled=true", "loom.bulkhead.http.per-host.name-prefix=host:")
            .withInitializer((context) -> context.getEnvironment().getPropertySources().addFirst(new MapPropertySource(
                    "host", Map.of("loom.bulkhead.instances[host:https://api.example.com:443].max-concurrent-calls",
                            "5"))))
            .withBean(ReportsService.class)
            .withUserConfiguration(ExecutorConfiguration.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(LoomBulkheadProperties.class).getInstances()).hasSize(5);
                assertThat(output).doesNotContain("nothing refers to it").doesNotContain("similarly named");
            });
    }

    @Test
    void anEntryNothingUsesWithoutASimilarNameIsReported(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.orphan.max-concurrent-calls=5")
            .run((context) -> assertThat(output).containsOnlyOnce("Bulkhead 'orphan' is configured "
                    + "(loom.bulkhead.instances.orphan) but nothing refers to it: no @Bulkhead, HTTP service group, "
                    + "per-host client, bounded executor bean or @Async executor names it. Check the name. Ignore this "
                    + "if application code asks the BulkheadRegistry for 'orphan' by name."));
    }

    @Test
    void aMisspeltEntryNamesTheBulkheadItWasMeantFor(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.calee.max-concurrent-calls=5",
                    "loom.bulkhead.instances.reprots.max-concurrent-calls=5",
                    "loom.bulkhead.instances.db.max-concurrent-calls=5")
            .withBean(CalleeService.class)
            .withBean(ReportsService.class)
            .withBean(DcService.class)
            .run((context) -> assertThat(output)
                .containsOnlyOnce("Bulkhead 'calee' is configured (loom.bulkhead.instances.calee) but nothing refers "
                        + "to it: no @Bulkhead, HTTP service group, per-host client, bounded executor bean or @Async "
                        + "executor names it. Did you mean 'callee'? Its entry would be loom.bulkhead.instances.callee. "
                        + "Ignore this if application code asks the BulkheadRegistry for 'calee' by name.")
                .containsOnlyOnce("Bulkhead 'reprots' is configured (loom.bulkhead.instances.reprots) but nothing "
                        + "refers to it: no @Bulkhead, HTTP service group, per-host client, bounded executor bean or "
                        + "@Async executor names it. Did you mean 'reports'?")
                // Two letters apart from 'dc' is not a typo of it: too short to tell.
                .containsOnlyOnce("Bulkhead 'db' is configured (loom.bulkhead.instances.db) but nothing refers to it: "
                        + "no @Bulkhead, HTTP service group, per-host client, bounded executor bean or @Async executor "
                        + "names it. Check the name.")
                .doesNotContain("Bulkhead 'callee' has no entry"));
    }

    @Test
    void aBulkheadCreatedLaterOneLetterApartFromAnEntryInUseIsNotReported(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.partner-a.max-concurrent-calls=5")
            .withBean(PartnerService.class)
            .run((context) -> {
                context.getBean(BulkheadRegistry.class).bulkhead("partner-b");
                assertThat(output).doesNotContain("partner-a").doesNotContain("partner-b");
            });
    }

    static class PartnerService {

        @Bulkhead("partner-a")
        public String call() {
            return "done";
        }
    }

    @Test
    void entriesThatSpringBootBindsAsOneAreReportedAsSuch(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.callee.max-concurrent-calls=10",
                    "loom.bulkhead.instances.Callee.queue-capacity=7",
                    "loom.bulkhead.instances[Reports].max-concurrent-calls=3",
                    "loom.bulkhead.instances.reports.max-concurrent-calls=4")
            .withBean(CalleeService.class)
            .withBean(ReportsService.class)
            .run((context) -> {
                // Spring Boot's binding: both spellings become entries, and each gets the settings of both.
                LoomBulkheadProperties.Instance callee = context.getBean(LoomBulkheadProperties.class)
                    .getInstances()
                    .get("Callee");
                assertThat(callee.getMaxConcurrentCalls()).isEqualTo(10);
                assertThat(callee.getQueueCapacity()).isEqualTo(7);
                assertThat(output)
                    .containsOnlyOnce("Entries [Callee, callee] under loom.bulkhead.instances are one entry to Spring "
                            + "Boot's binding, which compares names written without brackets ignoring case and dashes: "
                            + "each of these bulkheads gets the settings written under all of them. To configure them "
                            + "apart, write the names in brackets (loom.bulkhead.instances[Callee], "
                            + "loom.bulkhead.instances[callee]).")
                    // The other spelling is not offered as the one to configure: it is the same entry.
                    .doesNotContain("Bulkhead 'Callee' is configured")
                    // A name in brackets keeps its case and is an entry of its own.
                    .doesNotContain("Entries [Reports, reports]");
                assertThat(context.getBean(LoomBulkheadProperties.class).getInstances().get("Reports")
                    .getMaxConcurrentCalls()).isEqualTo(3);
            });
    }

    @Test
    void namesThatDifferOnlyInTheirLastPartOrDigitsAreNotTakenForTypos(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.instances.orders-us.max-concurrent-calls=5",
                    "loom.bulkhead.instances.partner2.max-concurrent-calls=5")
            .withBean(OrdersEuService.class)
            .withBean(Partner1Service.class)
            .run((context) -> assertThat(output)
                .containsOnlyOnce("Bulkhead 'orders-us' is configured (loom.bulkhead.instances.orders-us) but nothing "
                        + "refers to it")
                .containsOnlyOnce("Bulkhead 'partner2' is configured (loom.bulkhead.instances.partner2) but nothing "
                        + "refers to it")
                .doesNotContain("Did you mean"));
    }

    @Test
    void anEnvironmentVariableOverridingAnEntryOfTheFileIsNeitherUnusedNorReportedAsBoundAsOne(CapturedOutput output) {
        this.contextRunner.withInitializer((context) -> {
            MutablePropertySources sources = context.getEnvironment().getPropertySources();
            sources.replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                    new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                            Map.of("LOOM_BULKHEAD_INSTANCES_MYSERVICE_MAXCONCURRENTCALLS", "5")));
            // Where application.yml goes: after the environment variables.
            sources.addLast(new MapPropertySource("application.yml",
                    Map.of("loom.bulkhead.instances.my-service.max-concurrent-calls", "10",
                            "loom.bulkhead.instances.my-service.queue-capacity", "7")));
        })
            .withBean(DashedNameService.class)
            .run((context) -> {
                // The variable's 'myservice' and the file's 'my-service' are one entry: the variable overrides the
                // file's limit, the file's other settings stay.
                io.github.loombulkhead.Bulkhead bulkhead = context.getBean(BulkheadRegistry.class).bulkhead("my-service");
                assertThat(bulkhead.getLimit()).isEqualTo(5);
                assertThat(bulkhead.getConfig().getQueueCapacity()).isEqualTo(7);
                assertThat(output).doesNotContain("Entries [").doesNotContain("is configured");
            });
    }

    static class OrdersEuService {

        @Bulkhead("orders-eu")
        public String call() {
            return "done";
        }
    }

    static class Partner1Service {

        @Bulkhead("partner1")
        public String call() {
            return "done";
        }
    }

    static class DashedNameService {

        @Bulkhead("my-service")
        public String call() {
            return "done";
        }
    }

    static class CalleeService {

        @Bulkhead("callee")
        public String call() {
            return "done";
        }
    }

    static class DcService {

        @Bulkhead("dc")
        public String call() {
            return "done";
        }
    }

    static class DottedNameService {

        @Bulkhead("my.service")
        public String call() {
            return "done";
        }
    }

    static class UpperCaseNameService {

        @Bulkhead("MyService")
        public String call() {
            return "done";
        }
    }

    static class ReportsService {

        @Bulkhead("reports")
        public String call() {
            return "done";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class ExecutorConfiguration {

        @Bean(destroyMethod = "shutdown")
        BoundedVirtualExecutor batchExecutor(BoundedVirtualExecutors executors) {
            return executors.create("batch");
        }
    }
}
