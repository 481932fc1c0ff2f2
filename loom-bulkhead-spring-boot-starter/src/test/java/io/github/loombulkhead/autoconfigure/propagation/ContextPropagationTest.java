package io.github.loombulkhead.autoconfigure.propagation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.autoconfigure.BoundedVirtualExecutors;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.ThreadLocalAccessor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.TaskDecorator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Bulkhead tasks and asynchronous {@code @Bulkhead} calls run with the submitter's context. */
class ContextPropagationTest {

    private static final ThreadLocal<String> TENANT = new ThreadLocal<>();

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @AfterEach
    void clear() {
        MDC.clear();
        TENANT.remove();
    }

    @Test
    void mdcOfTheSubmitterIsVisibleInTheTask() {
        this.contextRunner.run((context) -> {
            ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("mdc");
            MDC.put("requestId", "r-42");
            try {
                assertThat(executor.submit(() -> MDC.get("requestId")).get(10, TimeUnit.SECONDS)).isEqualTo("r-42");
            }
            finally {
                executor.shutdown();
            }
        });
    }

    @Test
    void mdcIsCapturedAtSubmissionNotAtStart() {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.one.max-concurrent-calls=1").run((context) -> {
            ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("one");
            CompletableFuture<Void> gate = new CompletableFuture<>();
            executor.submit(() -> gate.join());
            MDC.put("requestId", "queued");
            var queued = executor.submit(() -> MDC.get("requestId"));
            MDC.put("requestId", "changed-after-submit");
            await().until(() -> context.getBean(BulkheadRegistry.class).bulkhead("one").getWaitingCount() == 1);
            gate.complete(null);
            assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo("queued");
            executor.shutdown();
        });
    }

    @Test
    void taskDecoratorBeansAreApplied() {
        this.contextRunner.withUserConfiguration(TenantDecoratorConfiguration.class).run((context) -> {
            ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("decorated");
            TENANT.set("acme");
            assertThat(executor.submit(TENANT::get).get(10, TimeUnit.SECONDS)).isEqualTo("acme");
            executor.shutdown();
        });
    }

    @Test
    void contextPropagationThreadLocalsArePropagated() {
        ContextRegistry contextRegistry = new ContextRegistry().registerThreadLocalAccessor(new TenantAccessor());
        this.contextRunner
            .withBean(ContextSnapshotFactory.class,
                    () -> ContextSnapshotFactory.builder().contextRegistry(contextRegistry).build())
            .run((context) -> {
                ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("snapshot");
                TENANT.set("globex");
                assertThat(executor.submit(TENANT::get).get(10, TimeUnit.SECONDS)).isEqualTo("globex");
                executor.shutdown();
            });
    }

    @Test
    void asynchronousBulkheadCallThatWaitsCarriesTheCallersMdc() {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.single.max-concurrent-calls=1")
            .withUserConfiguration(AsyncServiceConfiguration.class)
            .run((context) -> {
                AsyncService service = context.getBean(AsyncService.class);
                CompletableFuture<String> gate = new CompletableFuture<>();
                CompletableFuture<String> first = service.call(gate);
                MDC.put("requestId", "second-caller");
                CompletableFuture<String> second = service.call(CompletableFuture.completedFuture("x"));
                MDC.remove("requestId");
                await().until(() -> context.getBean(BulkheadRegistry.class).bulkhead("single").getWaitingCount() == 1);
                gate.complete("y");
                assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("y");
                assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("x");
                // Read through methods: the bean is a class-based proxy whose own fields are unused.
                assertThat(service.seenMdc()).isEqualTo("second-caller");
                assertThat(service.seenThread()).isNotEqualTo(Thread.currentThread().getName());
            });
    }

    @Test
    void propagationCanBeSwitchedOff() {
        this.contextRunner.withPropertyValues("loom.bulkhead.propagate-context=false").run((context) -> {
            ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("plain");
            MDC.put("requestId", "r-1");
            assertThat(executor.submit(() -> MDC.get("requestId")).get(10, TimeUnit.SECONDS)).isNull();
            executor.shutdown();
        });
    }

    @Test
    void whatATaskDecoratorBeanPutsIntoTheMdcIsNotReplacedByTheSubmittersMdc() {
        this.contextRunner.withBean("tenantMdcDecorator", TaskDecorator.class, () -> (task) -> {
            String tenant = TENANT.get();
            return () -> {
                MDC.put("tenant", tenant);
                try {
                    task.run();
                }
                finally {
                    MDC.remove("tenant");
                }
            };
        }).run((context) -> {
            ExecutorService executor = context.getBean(BoundedVirtualExecutors.class).create("mdc-decorated");
            TENANT.set("acme");
            MDC.put("requestId", "r-42");
            try {
                assertThat(executor.submit(() -> MDC.get("tenant") + " " + MDC.get("requestId"))
                    .get(10, TimeUnit.SECONDS)).isEqualTo("acme r-42");
            }
            finally {
                executor.shutdown();
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class TenantDecoratorConfiguration {

        @Bean
        TaskDecorator tenantTaskDecorator() {
            return (task) -> {
                String tenant = TENANT.get();
                return () -> {
                    TENANT.set(tenant);
                    try {
                        task.run();
                    }
                    finally {
                        TENANT.remove();
                    }
                };
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class AsyncServiceConfiguration {

        @Bean
        AsyncService asyncService() {
            return new AsyncService();
        }
    }

    static class AsyncService {

        private volatile String seenMdc;

        private volatile String seenThread;

        public String seenMdc() {
            return this.seenMdc;
        }

        public String seenThread() {
            return this.seenThread;
        }

        @Bulkhead("single")
        public CompletableFuture<String> call(CompletableFuture<String> result) {
            if (result.isDone()) {
                this.seenMdc = MDC.get("requestId");
                this.seenThread = Thread.currentThread().getName();
            }
            return result;
        }
    }

    static final class TenantAccessor implements ThreadLocalAccessor<String> {

        @Override
        public Object key() {
            return "tenant";
        }

        @Override
        public String getValue() {
            return TENANT.get();
        }

        @Override
        public void setValue(String value) {
            TENANT.set(value);
        }

        @Override
        public void setValue() {
            TENANT.remove();
        }
    }
}
