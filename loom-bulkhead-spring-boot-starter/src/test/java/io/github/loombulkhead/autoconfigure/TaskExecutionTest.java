package io.github.loombulkhead.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.autoconfigure.task.BoundedVirtualTaskExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.MDC;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.GeneratedFiles;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.javapoet.ClassName;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

/** {@code loom.bulkhead.task-execution.*}: a bounded, measured {@code applicationTaskExecutor} for {@code @Async}. */
@ExtendWith(OutputCaptureExtension.class)
class TaskExecutionTest {

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void offByDefaultSoSpringBootKeepsItsExecutor() {
        this.contextRunner.run((context) -> assertThat(context.getBean("applicationTaskExecutor"))
            .isInstanceOf(SimpleAsyncTaskExecutor.class));
    }

    @Test
    void platformThreadsWarnThatAsyncMethodsAreNotBounded(CapturedOutput output) {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadInactiveAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=false", "loom.bulkhead.task-execution.enabled=true")
            .run((context) -> {
                assertThat(context.getBean("applicationTaskExecutor")).isNotInstanceOf(BoundedVirtualTaskExecutor.class);
                assertThat(output).containsOnlyOnce("loom.bulkhead.task-execution.enabled is true but loom-bulkhead is "
                        + "INACTIVE, so @Async methods are NOT bounded: virtual threads are off. Set "
                        + "spring.threads.virtual.enabled=true (Java 21+) to bound them.");
            });
    }

    @Test
    void theBoundedExecutorPassesAheadOfTimeProcessing() {
        // Native images and spring.aot.enabled: bean definitions must be expressible as generated code.
        try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
            context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                    Map.of("spring.threads.virtual.enabled", "true", "loom.bulkhead.task-execution.enabled", "true")));
            context.register(LoomBulkheadAutoConfiguration.class, TaskExecutionAutoConfiguration.class);
            InMemoryGeneratedFiles files = new InMemoryGeneratedFiles();
            DefaultGenerationContext generation = new DefaultGenerationContext(
                    new ClassNameGenerator(ClassName.get("com.example", "Application")), files);
            assertThatCode(() -> new ApplicationContextAotGenerator().processAheadOfTime(context, generation))
                .doesNotThrowAnyException();
            generation.writeGeneratedContent();
            assertThat(files.getGeneratedFiles(GeneratedFiles.Kind.SOURCE).values())
                .anySatisfy((source) -> assertThat(source.toString()).contains("BoundedVirtualTaskExecutor"));
        }
    }

    @Test
    void enabledMakesApplicationTaskExecutorBounded() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true",
                    "loom.bulkhead.instances.application-task-executor.max-concurrent-calls=3")
            .run((context) -> {
                assertThat(context).getBean("applicationTaskExecutor").isInstanceOf(BoundedVirtualTaskExecutor.class);
                assertThat(context.getBean("taskExecutor")).isSameAs(context.getBean("applicationTaskExecutor"));
                BoundedVirtualTaskExecutor executor = context.getBean(BoundedVirtualTaskExecutor.class);
                assertThat(executor.getExecutor().getBulkhead().getLimit()).isEqualTo(3);
                assertThat(context.getBean(BulkheadRegistry.class).find("application-task-executor"))
                    .containsSame(executor.getExecutor().getBulkhead());
            });
    }

    @Test
    void aTaskThatWaitedNeverRunsWithTheInheritableThreadLocalsOfTheTaskWhosePermitItTook() {
        // Stands for Spring Security's SecurityContextHolder in MODE_INHERITABLETHREADLOCAL.
        InheritableThreadLocal<String> user = new InheritableThreadLocal<>();
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true",
                    "loom.bulkhead.instances.application-task-executor.max-concurrent-calls=1")
            .run((context) -> {
                AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
                io.github.loombulkhead.Bulkhead bulkhead = context.getBean(BulkheadRegistry.class)
                    .bulkhead("application-task-executor");
                CompletableFuture<Void> gate = new CompletableFuture<>();
                try {
                    user.set("alice");
                    Future<String> alices = executor.submit(() -> {
                        gate.join();
                        return user.get();
                    });
                    user.remove();
                    Future<String> anonymous = executor.submit(user::get);
                    await().until(() -> bulkhead.getWaitingCount() == 1);
                    gate.complete(null);

                    assertThat(anonymous.get(10, TimeUnit.SECONDS)).as("an anonymous caller's task, which waited")
                        .isNull();
                    assertThat(alices.get(10, TimeUnit.SECONDS)).as("alice's task: nothing is inherited").isNull();
                }
                finally {
                    user.remove();
                }
            });
    }

    @Test
    void asyncMethodsAreBoundedAndCarryTheCallersMdc() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true", "loom.bulkhead.task-execution.bulkhead=async",
                    "loom.bulkhead.instances.async.max-concurrent-calls=2")
            .withUserConfiguration(AsyncConfiguration.class)
            .run((context) -> {
                AsyncWorker worker = context.getBean(AsyncWorker.class);
                io.github.loombulkhead.Bulkhead bulkhead = context.getBean(BulkheadRegistry.class).bulkhead("async");
                CompletableFuture<Void> gate = new CompletableFuture<>();
                MDC.put("requestId", "async-1");
                try {
                    CompletableFuture<?>[] calls = new CompletableFuture<?>[5];
                    for (int i = 0; i < calls.length; i++) {
                        calls[i] = worker.work(gate);
                    }
                    await().until(() -> bulkhead.getActiveCount() == 2 && bulkhead.getWaitingCount() == 3);
                    gate.complete(null);
                    CompletableFuture.allOf(calls).get(10, TimeUnit.SECONDS);
                }
                finally {
                    MDC.clear();
                }
                // Read through a method: the bean is a class-based proxy whose own fields are unused.
                assertThat(worker.seen()).hasSize(5).containsOnly("async-1");
                // A future completes just before its task gives the permit back.
                await().until(() -> bulkhead.getCompletedCount() == 5);
                assertThat(bulkhead.getPermittedCount()).isEqualTo(5);
            });
    }

    @Test
    void anAsyncMethodReturningACompletableFutureIsRejectedAfterTheMaxWait() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true", "loom.bulkhead.task-execution.bulkhead=async",
                    "loom.bulkhead.instances.async.max-concurrent-calls=1",
                    "loom.bulkhead.instances.async.max-wait-duration=200ms")
            .withUserConfiguration(AsyncConfiguration.class)
            .run((context) -> {
                AsyncWorker worker = context.getBean(AsyncWorker.class);
                io.github.loombulkhead.Bulkhead bulkhead = context.getBean(BulkheadRegistry.class).bulkhead("async");
                CompletableFuture<Void> gate = new CompletableFuture<>();
                CompletableFuture<Void> running = worker.work(gate);
                await().until(() -> bulkhead.getActiveCount() == 1);
                CompletableFuture<Void> waiting = worker.work(gate);
                assertThat(waiting).failsWithin(Duration.ofSeconds(10))
                    .withThrowableOfType(ExecutionException.class)
                    .havingCause()
                    .isInstanceOfSatisfying(BulkheadRejectedException.class,
                            (rejection) -> assertThat(rejection.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT));
                gate.complete(null);
                running.get(10, TimeUnit.SECONDS);
                assertThat(worker.seen()).hasSize(1);
                assertThat(bulkhead.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
            });
    }

    @Test
    void threadsAreNamedAsSpringBootNamesThem() {
        this.contextRunner.withPropertyValues("loom.bulkhead.task-execution.enabled=true")
            .withUserConfiguration(AsyncConfiguration.class)
            .run((context) -> assertThat(context.getBean(AsyncWorker.class).threadName())
                .succeedsWithin(Duration.ofSeconds(10))
                .isEqualTo("task-1"));
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true",
                    "spring.task.execution.thread-name-prefix=reports-")
            .withUserConfiguration(AsyncConfiguration.class)
            .run((context) -> {
                AsyncWorker worker = context.getBean(AsyncWorker.class);
                assertThat(worker.threadName()).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("reports-1");
                assertThat(worker.threadName()).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("reports-2");
            });
    }

    @Test
    void anAsyncMethodsFailureReachesItsFuture() throws Exception {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true", "loom.bulkhead.task-execution.bulkhead=async")
            .withUserConfiguration(AsyncConfiguration.class)
            .run((context) -> assertThat(context.getBean(AsyncWorker.class).fail()).failsWithin(Duration.ofSeconds(10))
                .withThrowableOfType(ExecutionException.class)
                .havingCause()
                .isInstanceOf(java.io.IOException.class)
                .withMessage("failed on purpose"));
    }

    @Test
    void backsOffToUserApplicationTaskExecutor() {
        this.contextRunner.withPropertyValues("loom.bulkhead.task-execution.enabled=true")
            .withBean("applicationTaskExecutor", SimpleAsyncTaskExecutor.class)
            .run((context) -> assertThat(context).doesNotHaveBean(BoundedVirtualTaskExecutor.class));
    }

    @Test
    void backsOffLikeSpringBootWhenTheApplicationHasAnExecutorBean(CapturedOutput output) {
        this.contextRunner.withPropertyValues("loom.bulkhead.task-execution.enabled=true")
            .withBean("myExecutor", Executor.class, () -> Executors.newVirtualThreadPerTaskExecutor())
            .run((context) -> {
                assertThat(context).hasNotFailed()
                    .doesNotHaveBean(BoundedVirtualTaskExecutor.class)
                    .doesNotHaveBean("applicationTaskExecutor");
                assertThat(output).contains("loom.bulkhead.task-execution.enabled=true but no bounded "
                        + "applicationTaskExecutor was created: like Spring Boot, it backs off because the application "
                        + "defines its own Executor bean(s) [myExecutor]; set spring.task.execution.mode=force to "
                        + "create it anyway");
            });
    }

    @Test
    void withModeForceTheBoundedExecutorIsTheApplicationTaskExecutorBesideTheApplicationsExecutors() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true", "spring.task.execution.mode=force")
            .withBean("myExecutor", Executor.class, () -> Executors.newVirtualThreadPerTaskExecutor())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context).getBean("applicationTaskExecutor").isInstanceOf(BoundedVirtualTaskExecutor.class);
                assertThat(context).getBean("myExecutor").isNotInstanceOf(BoundedVirtualTaskExecutor.class);
                assertThat(context.getBeansOfType(BoundedVirtualTaskExecutor.class)).hasSize(1);
            });
    }

    @Test
    void withModeForceAloneTheBoundedExecutorIsTheApplicationTaskExecutor() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true", "spring.task.execution.mode=force")
            .run((context) -> assertThat(context).hasNotFailed()
                .getBean("applicationTaskExecutor")
                .isInstanceOf(BoundedVirtualTaskExecutor.class));
    }

    @Test
    void closingTheContextWaitsForRunningTasksWhenAwaitTerminationIsSet() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true",
                    "spring.task.execution.shutdown.await-termination=true",
                    "spring.task.execution.shutdown.await-termination-period=30s")
            .run((context) -> {
                CountDownLatch release = new CountDownLatch(1);
                AtomicBoolean finished = new AtomicBoolean();
                BoundedVirtualTaskExecutor executor = context.getBean(BoundedVirtualTaskExecutor.class);
                executor.execute(() -> {
                    awaitQuietly(release);
                    finished.set(true);
                });
                await().until(() -> executor.getExecutor().getBulkhead().getActiveCount() == 1);
                Thread closer = Thread.ofVirtual().start(context::close);
                // The close waits for the running task...
                await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(closer::isAlive);
                release.countDown();
                closer.join(10_000);
                // ...and returns once it has finished.
                assertThat(closer.isAlive()).isFalse();
                assertThat(finished).isTrue();
            });
    }

    @Test
    void closingTheContextWaitsAtMostTheAwaitTerminationPeriod() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.task-execution.enabled=true",
                    "spring.task.execution.shutdown.await-termination=true",
                    "spring.task.execution.shutdown.await-termination-period=200ms")
            .run((context) -> {
                CountDownLatch release = new CountDownLatch(1);
                BoundedVirtualTaskExecutor executor = context.getBean(BoundedVirtualTaskExecutor.class);
                executor.execute(() -> awaitQuietly(release));
                await().until(() -> executor.getExecutor().getBulkhead().getActiveCount() == 1);
                long start = System.nanoTime();
                context.close();
                long closedAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                release.countDown();
                assertThat(closedAfterMillis).isBetween(190L, 10_000L);
            });
    }

    @Test
    void closingTheContextDoesNotWaitByDefault() {
        this.contextRunner.withPropertyValues("loom.bulkhead.task-execution.enabled=true").run((context) -> {
            CountDownLatch release = new CountDownLatch(1);
            BoundedVirtualTaskExecutor executor = context.getBean(BoundedVirtualTaskExecutor.class);
            executor.execute(() -> awaitQuietly(release));
            await().until(() -> executor.getExecutor().getBulkhead().getActiveCount() == 1);
            Thread closer = Thread.ofVirtual().start(context::close);
            closer.join(10_000);
            assertThat(closer.isAlive()).isFalse();
            // Like Spring Boot's executor, accepted tasks still run to their end.
            assertThat(executor.getExecutor().getBulkhead().getActiveCount()).isEqualTo(1);
            release.countDown();
            await().until(() -> executor.getExecutor().isTerminated());
        });
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {

        @Bean
        AsyncWorker asyncWorker() {
            return new AsyncWorker();
        }
    }

    static class AsyncWorker {

        private final java.util.Queue<String> seen = new java.util.concurrent.ConcurrentLinkedQueue<>();

        public java.util.List<String> seen() {
            return java.util.List.copyOf(this.seen);
        }

        @Async
        public CompletableFuture<String> threadName() {
            return CompletableFuture.completedFuture(Thread.currentThread().getName());
        }

        @Async
        public CompletableFuture<Void> fail() throws java.io.IOException {
            throw new java.io.IOException("failed on purpose");
        }

        @Async
        public CompletableFuture<Void> work(CompletableFuture<Void> gate) {
            this.seen.add(String.valueOf(MDC.get("requestId")));
            gate.join();
            return CompletableFuture.completedFuture(null);
        }
    }
}
