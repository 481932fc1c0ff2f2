package io.github.loombulkhead.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.annotation.BulkheadAnnotationBeanPostProcessor;
import io.github.loombulkhead.autoconfigure.propagation.ContextPropagatingDecorator;
import io.github.loombulkhead.autoconfigure.http.CalleeClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Activation, defaults, property binding and back-off of {@link LoomBulkheadAutoConfiguration}. */
@ExtendWith(OutputCaptureExtension.class)
class LoomBulkheadAutoConfigurationTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(LoomBulkheadAutoConfiguration.class, LoomBulkheadInactiveAutoConfiguration.class));

    @Test
    void activeWithVirtualThreads() {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
            assertThat(context).hasSingleBean(BulkheadRegistry.class)
                .hasSingleBean(BulkheadAnnotationBeanPostProcessor.class)
                .hasSingleBean(ContextPropagatingDecorator.class)
                .hasSingleBean(BoundedVirtualExecutors.class)
                .doesNotHaveBean(InactiveBulkheadsReporter.class);
        });
    }

    @Test
    void defaultsEqualTheCoreDefaultsSoTheReferenceBurstCompletes() {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
            BulkheadConfig config = context.getBean(BulkheadRegistry.class).resolveConfig("anything");
            BulkheadConfig core = BulkheadConfig.ofDefaults();
            assertThat(config.getMaxConcurrentCalls()).isEqualTo(core.getMaxConcurrentCalls()).isEqualTo(100);
            assertThat(config.getMaxWaitDuration()).isEqualTo(core.getMaxWaitDuration())
                .isEqualTo(Duration.ofSeconds(60));
            assertThat(config.getQueueCapacity()).isEqualTo(core.getQueueCapacity()).isEqualTo(10_000);
            assertThat(config.isFair()).isEqualTo(core.isFair()).isTrue();
            // 1,000 calls at a limit of 100, 3 s each: 900 wait (< 10,000), the last one 27 s (< 60 s).
            assertThat(1000 - config.getMaxConcurrentCalls()).isLessThanOrEqualTo(config.getQueueCapacity());
            assertThat(Duration.ofSeconds(3L * (1000 / config.getMaxConcurrentCalls() - 1)))
                .isEqualTo(Duration.ofSeconds(27))
                .isLessThan(config.getMaxWaitDuration());
        });
    }

    @Test
    void referenceBurstSucceedsWithOnlyTheLimitSet() {
        // The reference burst scaled in time: 1,000 tasks at once, limit 100, 100 ms each instead of 3 s.
        this.contextRunner
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.instances.callee.max-concurrent-calls=100")
            .run((context) -> {
                ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("callee");
                AtomicInteger running = new AtomicInteger();
                AtomicInteger maxRunning = new AtomicInteger();
                List<Future<?>> results = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    results.add(executor.submit(() -> {
                        maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                        try {
                            // Work that holds the permit, as the callee's 3 s did in the reference burst.
                            Thread.sleep(100);
                        }
                        finally {
                            running.decrementAndGet();
                        }
                        return null;
                    }));
                }
                for (Future<?> result : results) {
                    result.get(60, TimeUnit.SECONDS);
                }
                executor.shutdown();
                io.github.loombulkhead.Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
                assertThat(callee.getPermittedCount()).isEqualTo(1000);
                // A future completes just before its task gives the permit back.
                await().until(() -> callee.getCompletedCount() == 1000);
                assertThat(callee.getRejectedCount()).isZero();
                assertThat(maxRunning.get()).isEqualTo(100);
            });
    }

    @Test
    void inactiveWithoutVirtualThreads() {
        this.contextRunner.run((context) -> assertThat(context).doesNotHaveBean(BulkheadRegistry.class)
            .doesNotHaveBean(BulkheadAnnotationBeanPostProcessor.class));
    }

    @Test
    void disabledByProperty() {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean(BulkheadRegistry.class)
                .doesNotHaveBean(BulkheadAnnotationBeanPostProcessor.class));
    }

    @Test
    void everyPropertyBinds() {
        this.contextRunner
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.propagate-context=false",
                    "loom.bulkhead.defaults.max-concurrent-calls=200", "loom.bulkhead.defaults.max-wait-duration=30s",
                    "loom.bulkhead.defaults.queue-capacity=5000", "loom.bulkhead.defaults.fair=false",
                    "loom.bulkhead.instances.callee.max-concurrent-calls=7",
                    "loom.bulkhead.instances.callee.max-wait-duration=2s",
                    "loom.bulkhead.instances.callee.queue-capacity=3", "loom.bulkhead.instances.callee.fair=true",
                    "loom.bulkhead.http.groups.github.enabled=false", "loom.bulkhead.http.groups.github.bulkhead=gh",
                    "loom.bulkhead.http.per-host.enabled=true", "loom.bulkhead.http.per-host.name-prefix=host:",
                    "loom.bulkhead.http.per-host.max-hosts=9",
                    "loom.bulkhead.http.per-host.template.max-concurrent-calls=4",
                    "loom.bulkhead.http.per-host.template.max-wait-duration=1s",
                    "loom.bulkhead.http.per-host.template.queue-capacity=6",
                    "loom.bulkhead.http.per-host.template.fair=true", "loom.bulkhead.http.pool.enabled=false",
                    "loom.bulkhead.task-execution.enabled=true", "loom.bulkhead.task-execution.bulkhead=async")
            .run((context) -> {
                LoomBulkheadProperties properties = context.getBean(LoomBulkheadProperties.class);
                assertThat(properties.isEnabled()).isTrue();
                assertThat(properties.isPropagateContext()).isFalse();
                assertThat(properties.getDefaults().getMaxConcurrentCalls()).isEqualTo(200);
                assertThat(properties.getDefaults().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(30));
                assertThat(properties.getDefaults().getQueueCapacity()).isEqualTo(5000);
                assertThat(properties.getDefaults().isFair()).isFalse();
                LoomBulkheadProperties.Instance callee = properties.getInstances().get("callee");
                assertThat(callee.getMaxConcurrentCalls()).isEqualTo(7);
                assertThat(callee.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(2));
                assertThat(callee.getQueueCapacity()).isEqualTo(3);
                assertThat(callee.getFair()).isTrue();
                LoomBulkheadProperties.HttpGroup github = properties.getHttp().getGroups().get("github");
                assertThat(github.isEnabled()).isFalse();
                assertThat(github.getBulkhead()).isEqualTo("gh");
                LoomBulkheadProperties.PerHost perHost = properties.getHttp().getPerHost();
                assertThat(perHost.isEnabled()).isTrue();
                assertThat(perHost.getNamePrefix()).isEqualTo("host:");
                assertThat(perHost.getMaxHosts()).isEqualTo(9);
                assertThat(perHost.getTemplate().getMaxConcurrentCalls()).isEqualTo(4);
                assertThat(perHost.getTemplate().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(1));
                assertThat(perHost.getTemplate().getQueueCapacity()).isEqualTo(6);
                assertThat(perHost.getTemplate().getFair()).isTrue();
                assertThat(properties.getHttp().getPool().isEnabled()).isFalse();
                assertThat(properties.getTaskExecution().isEnabled()).isTrue();
                assertThat(properties.getTaskExecution().getBulkhead()).isEqualTo("async");
                assertThat(context.getBean(ContextPropagatingDecorator.class).isEmpty()).isTrue();
                assertThat(context.getBean(BulkheadConfigMapper.class).perHostTemplate())
                    .satisfies((template) -> assertThat(template.getMaxConcurrentCalls()).isEqualTo(4))
                    .satisfies((template) -> assertThat(template.getQueueCapacity()).isEqualTo(6))
                    .satisfies((template) -> assertThat(template.isFair()).isTrue());
            });
    }

    @Test
    void instanceOverridesDefaultsFieldByField() {
        this.contextRunner
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.defaults.max-concurrent-calls=200",
                    "loom.bulkhead.defaults.max-wait-duration=30s", "loom.bulkhead.defaults.fair=false",
                    "loom.bulkhead.instances.callee.max-concurrent-calls=10")
            .run((context) -> {
                BulkheadConfig callee = context.getBean(BulkheadRegistry.class).find("callee").orElseThrow().getConfig();
                assertThat(callee.getMaxConcurrentCalls()).isEqualTo(10);
                assertThat(callee.getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(30));
                assertThat(callee.getQueueCapacity()).isEqualTo(10_000);
                assertThat(callee.isFair()).isFalse();
            });
    }

    @Test
    void unknownNameInAnnotationUsesTheDefaults() {
        this.contextRunner
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.defaults.max-concurrent-calls=42",
                    "loom.bulkhead.instances.other.max-concurrent-calls=3")
            .withUserConfiguration(AnnotatedServiceConfiguration.class)
            .run((context) -> {
                AnnotatedService service = context.getBean(AnnotatedService.class);
                assertThat(AopUtils.isAopProxy(service)).isTrue();
                assertThat(service.call()).isEqualTo("done");
                io.github.loombulkhead.Bulkhead bulkhead = context.getBean(BulkheadRegistry.class)
                    .find("unconfigured")
                    .orElseThrow();
                assertThat(bulkhead.getConfig().getMaxConcurrentCalls()).isEqualTo(42);
                assertThat(bulkhead.getPermittedCount()).isEqualTo(1);
                assertThat(bulkhead.getCompletedCount()).isEqualTo(1);
            });
    }

    @Test
    void configuredInstancesExistFromTheStart() {
        this.contextRunner
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.instances.a.max-concurrent-calls=1",
                    "loom.bulkhead.instances.b.fair=false")
            .run((context) -> assertThat(context.getBean(BulkheadRegistry.class).getAllBulkheads())
                .extracting(io.github.loombulkhead.Bulkhead::getName)
                .containsExactlyInAnyOrder("a", "b"));
    }

    @Test
    void registryCustomizersApply() {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true")
            .withBean(BulkheadRegistryCustomizer.class,
                    () -> (builder) -> builder.configResolver((name) -> name.startsWith("tiny-")
                            ? BulkheadConfig.custom().maxConcurrentCalls(1).build() : null))
            .run((context) -> {
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                assertThat(registry.resolveConfig("tiny-x").getMaxConcurrentCalls()).isEqualTo(1);
                assertThat(registry.resolveConfig("big").getMaxConcurrentCalls()).isEqualTo(100);
            });
    }

    @Test
    void backsOffToUserRegistry() {
        BulkheadRegistry own = BulkheadRegistry.ofDefaults();
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true")
            .withBean(BulkheadRegistry.class, () -> own)
            .run((context) -> assertThat(context).getBean(BulkheadRegistry.class).isSameAs(own));
    }

    @Test
    void backsOffToUserTaskDecoratorAndExecutorsAndPostProcessor() {
        ContextPropagatingDecorator decorator = ContextPropagatingDecorator.none();
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true")
            .withBean(ContextPropagatingDecorator.class, () -> decorator)
            .withUserConfiguration(OwnBeansConfiguration.class)
            .run((context) -> {
                assertThat(context).getBean(ContextPropagatingDecorator.class).isSameAs(decorator);
                assertThat(context).getBean(BoundedVirtualExecutors.class).isSameAs(OwnBeansConfiguration.EXECUTORS);
                assertThat(context).getBean(BulkheadAnnotationBeanPostProcessor.class)
                    .isSameAs(OwnBeansConfiguration.POST_PROCESSOR);
            });
    }

    @Test
    void warnsOnceWhenAnnotationsExistButVirtualThreadsAreOff(CapturedOutput output) {
        this.contextRunner.withUserConfiguration(AnnotatedServiceConfiguration.class).run((context) -> {
            assertThat(context).hasSingleBean(InactiveBulkheadsReporter.class).doesNotHaveBean(BulkheadRegistry.class);
            assertThat(AopUtils.isAopProxy(context.getBean(AnnotatedService.class))).isFalse();
        });
        assertThat(output).containsOnlyOnce("@Bulkhead is used by 1 bean(s) [annotatedService] but loom-bulkhead is "
                + "INACTIVE, so these calls are NOT bounded: virtual threads are off. Set "
                + "spring.threads.virtual.enabled=true (Java 21+) to bound them.");
        assertThat(output).contains("WARN");
    }

    @Test
    void warningNamesHttpInterfaceClientsToo(CapturedOutput output) {
        this.contextRunner.withUserConfiguration(HttpClientConfiguration.class)
            .run((context) -> assertThat(context).hasSingleBean(CalleeClient.class));
        assertThat(output).containsPattern("@Bulkhead is used by 1 bean\\(s\\) \\[[^\\]]*CalleeClient[^\\]]*\\] but "
                + "loom-bulkhead is INACTIVE");
    }

    @Test
    void warnsWhenDisabledByProperty(CapturedOutput output) {
        this.contextRunner.withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.enabled=false")
            .withUserConfiguration(AnnotatedServiceConfiguration.class)
            .run((context) -> assertThat(context).hasSingleBean(InactiveBulkheadsReporter.class));
        assertThat(output).containsOnlyOnce("so these calls are NOT bounded: loom.bulkhead.enabled is false.");
    }

    @Test
    void warnsWhenHttpServiceGroupsAreBoundedButVirtualThreadsAreOff(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.groups.callee.bulkhead=outbound",
                    "loom.bulkhead.http.groups.search.enabled=true", "loom.bulkhead.http.groups.off.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadRegistry.class));
        assertThat(output).containsOnlyOnce("loom.bulkhead.http.groups bounds the HTTP service group(s) [callee "
                + "(bulkhead 'outbound'), search] but loom-bulkhead is INACTIVE, so the calls of their clients are NOT "
                + "bounded: virtual threads are off. Set spring.threads.virtual.enabled=true (Java 21+) to bound them.");
    }

    @Test
    void warnsWhenHttpServiceGroupsAreBoundedButLoomBulkheadIsDisabled(CapturedOutput output) {
        this.contextRunner
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.enabled=false",
                    "loom.bulkhead.http.groups.callee.bulkhead=callee")
            .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).containsOnlyOnce("loom.bulkhead.http.groups bounds the HTTP service group(s) [callee] but "
                + "loom-bulkhead is INACTIVE, so the calls of their clients are NOT bounded: loom.bulkhead.enabled is false.");
    }

    @Test
    void noWarningForHttpServiceGroupsThatAreSwitchedOff(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.groups.callee.enabled=false")
            .run((context) -> assertThat(context).hasNotFailed());
        assertThat(output).doesNotContain("loom-bulkhead is INACTIVE");
    }

    @Test
    void warnsWhenPerHostBulkheadsAreSwitchedOnButVirtualThreadsAreOff(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.http.per-host.enabled=true")
            .run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(BulkheadRegistry.class));
        assertThat(output).containsOnlyOnce("loom.bulkhead.http.per-host.enabled is true but loom-bulkhead is INACTIVE, "
                + "so calls of RestClients to each host are NOT bounded: virtual threads are off. Set "
                + "spring.threads.virtual.enabled=true (Java 21+) to bound them.");
    }

    @Test
    void aFinalClassWithBulkheadFailsStartupNamingTheAnnotation() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true")
            .withBean(FinalService.class)
            .run((context) -> assertThat(context.getStartupFailure()).isNotNull()
                .hasStackTraceContaining("Invalid @Bulkhead on " + FinalService.class.getName() + ".call(): "
                        + FinalService.class.getName() + " is final (a record, or a Kotlin class that is not open) "
                        + "and a class-based (CGLIB) proxy cannot subclass a final class, so its calls would not "
                        + "be bounded; remove final"));
    }

    @Test
    void aRecordWithBulkheadFailsStartupNamingTheAnnotation() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true")
            .withBean(RecordService.class, () -> new RecordService("done"))
            .run((context) -> assertThat(context.getStartupFailure()).isNotNull()
                .hasStackTraceContaining("Invalid @Bulkhead on " + RecordService.class.getName() + ".call(): "
                        + RecordService.class.getName() + " is final (a record"));
    }

    @Test
    void aFinalClassBehindAnInterfaceIsBoundedThroughAnInterfaceProxy() {
        this.contextRunner.withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "spring.aop.proxy-target-class=false")
            .withBean(FinalGreeter.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(Greeter.class).greet()).isEqualTo("hello");
                assertThat(context.getBean(BulkheadRegistry.class).bulkhead("greeter").getCompletedCount())
                    .isEqualTo(1);
            });
    }

    @Test
    void noWarningWithoutAnnotations(CapturedOutput output) {
        this.contextRunner.run((context) -> assertThat(context).hasSingleBean(InactiveBulkheadsReporter.class));
        assertThat(output).doesNotContain("loom-bulkhead is INACTIVE");
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "callee", types = CalleeClient.class)
    static class HttpClientConfiguration {

    }

    @Configuration(proxyBeanMethods = false)
    static class AnnotatedServiceConfiguration {

        @Bean
        AnnotatedService annotatedService() {
            return new AnnotatedService();
        }
    }

    static class AnnotatedService {

        @Bulkhead("unconfigured")
        public String call() {
            return "done";
        }
    }

    static final class FinalService {

        @Bulkhead("final")
        public String call() {
            return "done";
        }
    }

    record RecordService(String result) {

        @Bulkhead("record")
        public String call() {
            return this.result;
        }
    }

    interface Greeter {

        String greet();
    }

    static final class FinalGreeter implements Greeter {

        @Override
        @Bulkhead("greeter")
        public String greet() {
            return "hello";
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeansConfiguration {

        static final BoundedVirtualExecutors EXECUTORS = new BoundedVirtualExecutors(BulkheadRegistry.ofDefaults(),
                ContextPropagatingDecorator.none());

        static final BulkheadAnnotationBeanPostProcessor POST_PROCESSOR = new BulkheadAnnotationBeanPostProcessor(
                BulkheadRegistry.ofDefaults());

        @Bean
        BoundedVirtualExecutors ownExecutors() {
            return EXECUTORS;
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor ownPostProcessor() {
            return POST_PROCESSOR;
        }
    }
}
