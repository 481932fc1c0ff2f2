package io.github.loombulkhead.autoconfigure;

import java.io.UncheckedIOException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.autoconfigure.cluster.LoomBulkheadClusterAutoConfiguration;
import io.github.loombulkhead.autoconfigure.endpoint.BulkheadsEndpoint;
import io.github.loombulkhead.autoconfigure.endpoint.LoomBulkheadEndpointAutoConfiguration;
import io.github.loombulkhead.autoconfigure.http.LoomBulkheadHttpAutoConfiguration;
import io.github.loombulkhead.autoconfigure.metrics.LoomBulkheadMetricsAutoConfiguration;
import io.github.loombulkhead.autoconfigure.server.LoomBulkheadServerAutoConfiguration;
import io.github.loombulkhead.autoconfigure.server.LoomBulkheadServerWarningAutoConfiguration;
import io.github.loombulkhead.autoconfigure.server.ServerBulkheadFilter;
import io.github.loombulkhead.autoconfigure.task.BoundedVirtualTaskExecutor;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import io.github.loombulkhead.limit.Outcome;
import io.github.loombulkhead.redis.ClusterBulkhead;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.RedisServer;
import io.github.loombulkhead.redis.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aot.test.generate.TestGenerationContext;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.imperative.ImperativeHttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.service.HttpServiceClientPropertiesAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.service.HttpServiceClientAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.DecoratingProxy;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.test.tools.CompileWithForkedClassLoader;
import org.springframework.core.test.tools.TestCompiler;
import org.springframework.javapoet.ClassName;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.context.support.GenericWebApplicationContext;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.service.registry.ImportHttpServices;
import org.springframework.util.function.ThrowingConsumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The starter under ahead-of-time processing, as {@code spring-boot:process-aot} then {@code -Dspring.aot.enabled=true}
 * (and a native image) run it: the auto-configurations are processed into code, compiled, and a fresh context is
 * started from the generated initializer alone; its bulkheads must bound, measure and be configured as on the JVM.
 */
@CompileWithForkedClassLoader
@ExtendWith({ LoopbackServerExtension.class, RedisServerExtension.class, OutputCaptureExtension.class })
class AheadOfTimeTest {

    /** Printed before the generated context starts: what comes after it, the application logged when it started. */
    private static final String STARTING = "Starting the application from the generated code";

    @Test
    void bulkheadsBoundMeasureAndBindTheirProperties(CapturedOutput output) {
        // Built with a limit of 4, run with 1: the limits are bound when the application starts.
        Map<String, Object> properties = Map.of("loom.bulkhead.instances.svc.max-concurrent-calls", "4",
                "loom.bulkhead.instances.svc.queue-capacity", "0",
                "loom.bulkhead.instances.adaptive.adaptive.enabled", "true",
                "loom.bulkhead.instances.adaptive.max-concurrent-calls", "40",
                "loom.bulkhead.instances.adaptive.adaptive.drop-exceptions[0]", "java.io.UncheckedIOException",
                "loom.bulkhead.instances.adaptive.adaptive.drop-exceptions[1]", Overloaded.class.getName(),
                "management.endpoints.web.exposure.include", "bulkheads");
        Map<String, Object> atRuntime = Map.of("loom.bulkhead.instances.svc.max-concurrent-calls", "1");
        RuntimeHints hints = runAheadOfTime(GenericApplicationContext::new, properties, atRuntime, Application.class,
                (context) -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            Bulkhead svc = registry.find("svc").orElseThrow();
            assertThat(svc.getLimit()).isEqualTo(1);
            assertThat(svc.getConfig().getQueueCapacity()).isZero();

            // The @Bulkhead method holds the only permit: a second call at the same time is rejected.
            Service service = context.getBean(Service.class);
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = Thread.ofVirtual().start(() -> service.hold(entered, release));
            await().until(() -> entered.getCount() == 0);
            assertThat(svc.getActiveCount()).isEqualTo(1);
            assertThatExceptionOfType(BulkheadRejectedException.class)
                .isThrownBy(() -> service.hold(new CountDownLatch(1), new CountDownLatch(0)))
                .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL));
            release.countDown();
            join(holder);
            assertThat(svc.getPermittedCount()).isEqualTo(1);
            assertThat(svc.getRejectedCount()).isEqualTo(1);

            Bulkhead adaptive = registry.find("adaptive").orElseThrow();
            assertThat(adaptive.isAdaptive()).isTrue();
            assertThat(adaptive.getCeiling()).isEqualTo(40);
            assertThat(adaptive.outcomeOf(new UncheckedIOException(new IOException("reset")))).isEqualTo(Outcome.DROPPED);
            assertThat(adaptive.outcomeOf(new Overloaded())).isEqualTo(Outcome.DROPPED);
            assertThat(adaptive.outcomeOf(new IllegalStateException())).isEqualTo(Outcome.SUCCESS);

            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("loom.bulkhead.limit").tag("name", "svc").gauge().value()).isEqualTo(1.0);
            assertThat(meters.get("loom.bulkhead.calls").tag("name", "svc").tag("outcome", "permitted")
                .functionCounter()
                .count()).isEqualTo(1.0);
            assertThat(meters.get("loom.bulkhead.calls").tags("name", "svc", "outcome", "rejected", "reason", "queue-full")
                .functionCounter()
                .count()).isEqualTo(1.0);

            BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
            assertThat(endpoint.bulkheads().bulkheads()).containsKeys("svc", "adaptive");

            // The startup report tells used bulkheads from unused ones in the generated context too.
            assertThat(output).contains("Bulkhead 'adaptive' is configured")
                .doesNotContain("Bulkhead 'svc' is configured");
        });
        // What a native image of this application needs beyond what the generated code names.
        assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Service.class, "hold")).accepts(hints);
        // The class-based proxy of the @Bulkhead bean is generated by the build (a native image makes none at runtime).
        assertThat(RuntimeHintsPredicates.reflection()
            .onType(TypeReference.of(Service.class.getName() + "$$SpringCGLIB$$0"))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Overloaded.class)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("org.slf4j.MDC"))).accepts(hints);
        // Spring Boot's binding hints cover what the unknown-key failure analyzer reflects on.
        assertThat(RuntimeHintsPredicates.reflection().onType(LoomBulkheadProperties.InstanceAdaptive.class))
            .accepts(hints);
    }

    @Test
    void theBoundedApplicationTaskExecutorIsCreated() {
        Map<String, Object> properties = Map.of("loom.bulkhead.task-execution.enabled", "true",
                "loom.bulkhead.instances.application-task-executor.max-concurrent-calls", "3");
        runAheadOfTime(GenericApplicationContext::new, properties, Application.class, (context) -> {
            assertThat(context.getBean("applicationTaskExecutor")).isInstanceOf(BoundedVirtualTaskExecutor.class);
            assertThat(context.getBean("taskExecutor")).isSameAs(context.getBean("applicationTaskExecutor"));
            BoundedVirtualTaskExecutor executor = context.getBean(BoundedVirtualTaskExecutor.class);
            assertThat(executor.getExecutor().getBulkhead().getLimit()).isEqualTo(3);
        });
    }

    @Test
    void inactiveWithoutVirtualThreadsWarnsThatAnnotatedBeansAreNotBounded(CapturedOutput output) {
        runAheadOfTime(GenericApplicationContext::new, Map.of("spring.threads.virtual.enabled", "false"),
                Application.class, (context) -> {
                    assertThat(context.getBeansOfType(BulkheadRegistry.class)).isEmpty();
                    assertThat(AopUtils.isAopProxy(context.getBean(Service.class))).isFalse();
                    assertThat(output).contains("@Bulkhead is used by 1 bean(s) [service] but loom-bulkhead is INACTIVE");
                });
    }

    @Test
    void theExecutorThatBacksOffSaysSoWhenTheApplicationStarts(CapturedOutput output) {
        runAheadOfTime(GenericApplicationContext::new, Map.of("loom.bulkhead.task-execution.enabled", "true"),
                WithExecutor.class, (context) -> {
                    assertThat(context.getBeansOfType(BoundedVirtualTaskExecutor.class)).isEmpty();
                    assertThat(output.toString().substring(output.toString().lastIndexOf(STARTING)))
                        .contains("loom.bulkhead.task-execution.enabled=true but no bounded applicationTaskExecutor "
                                + "was created: like Spring Boot, it backs off because the application defines its "
                                + "own Executor bean(s) [myExecutor]");
                });
    }

    @Test
    void httpServiceGroupsAreBounded(LoopbackServer callee, CapturedOutput output) {
        Map<String, Object> properties = Map.of("loom.bulkhead.instances.x.max-concurrent-calls", "1",
                "loom.bulkhead.instances.x.queue-capacity", "0",
                "loom.bulkhead.http.groups.plain.bulkhead", "g", "loom.bulkhead.instances.g.max-concurrent-calls", "1",
                "loom.bulkhead.instances.g.queue-capacity", "0",
                "spring.http.serviceclient.callee.base-url", callee.baseUrl(),
                "spring.http.serviceclient.plain.base-url", callee.baseUrl());
        RuntimeHints hints = runAheadOfTime(GenericApplicationContext::new, properties, HttpApplication.class, (context) -> {
            BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
            assertSecondCallRejected(callee, registry.find("x").orElseThrow(),
                    context.getBean(io.github.loombulkhead.autoconfigure.http.CalleeClient.class)::slow);
            callee.reset();
            assertSecondCallRejected(callee, registry.find("g").orElseThrow(),
                    context.getBean(io.github.loombulkhead.autoconfigure.http.PlainClient.class)::slow);
            assertThat(output).doesNotContain("is configured (loom.bulkhead.instances");
            // The bulkhead joins the client's own proxy: no second proxy, whose interfaces a native image would need.
            assertThat(context.getBean(io.github.loombulkhead.autoconfigure.http.CalleeClient.class).getClass()
                .getInterfaces()).containsExactly(io.github.loombulkhead.autoconfigure.http.CalleeClient.class,
                        SpringProxy.class, Advised.class, DecoratingProxy.class);
        });
        assertThat(RuntimeHintsPredicates.proxies()
            .forInterfaces(io.github.loombulkhead.autoconfigure.http.CalleeClient.class, SpringProxy.class,
                    Advised.class, DecoratingProxy.class)).accepts(hints);
    }

    @Test
    void clusterBulkheadsShareTheirLimitThroughRedis(RedisServer redis) {
        Map<String, Object> properties = Map.of("spring.data.redis.host", "127.0.0.1",
                "spring.data.redis.port", Integer.toString(redis.port()), "spring.data.redis.timeout", "500ms",
                "loom.bulkhead.cluster.key-prefix", "aot-" + UUID.randomUUID(),
                "loom.bulkhead.instances.callee.max-concurrent-calls", "2",
                "loom.bulkhead.instances.callee.cluster.enabled", "true",
                "loom.bulkhead.instances.callee.cluster.fallback", "reject");
        RuntimeHints hints = runAheadOfTime(GenericApplicationContext::new, properties, ClusterApplication.class,
                (context) -> {
                    Bulkhead callee = context.getBean(BulkheadRegistry.class).find("callee").orElseThrow();
                    ClusterBulkhead cluster = context.getBean(ClusterBulkheads.class).find("callee").orElseThrow();
                    callee.acquirePermit();
                    callee.acquirePermit();
                    assertThat(callee.tryAcquirePermit()).isFalse();
                    // Leased from Redis by the scripts read from the class path.
                    await().atMost(java.time.Duration.ofSeconds(5)).until(() -> cluster.getClusterInFlight() == 2);
                    callee.onComplete(0);
                    callee.onComplete(0);
                });
        for (String script : List.of("lease-keys.lua", "sync.lua", "init.lua", "change-limit.lua")) {
            assertThat(RuntimeHintsPredicates.resource().forResource("io/github/loombulkhead/redis/" + script))
                .accepts(hints);
        }
    }

    @Test
    void theServerBulkheadFilterBoundsRequests(CapturedOutput output) throws NoSuchMethodException {
        Map<String, Object> properties = Map.of("loom.bulkhead.server.enabled", "true",
                "loom.bulkhead.instances.server.max-concurrent-calls", "1",
                "loom.bulkhead.instances.server.queue-capacity", "0");
        RuntimeHints hints = runAheadOfTime(GenericWebApplicationContext::new, properties, ServerApplication.class,
                (context) -> {
            @SuppressWarnings("unchecked")
            FilterRegistrationBean<ServerBulkheadFilter> registration = context.getBean("serverBulkheadFilter",
                    FilterRegistrationBean.class);
            ServerBulkheadFilter filter = registration.getFilter();
            Bulkhead server = context.getBean(BulkheadRegistry.class).find("server").orElseThrow();
            CountDownLatch release = new CountDownLatch(1);
            Thread holder = Thread.ofVirtual().start(() -> {
                try {
                    filter.doFilter(new MockHttpServletRequest("GET", "/held"), new MockHttpServletResponse(),
                            (request, response) -> awaitLatch(release));
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
            });
            await().until(() -> server.getActiveCount() == 1);
            MockHttpServletResponse rejected = new MockHttpServletResponse();
            filter.doFilter(new MockHttpServletRequest("GET", "/other"), rejected, new MockFilterChain());
            assertThat(rejected.getStatus()).isEqualTo(503);
            release.countDown();
            join(holder);
            assertThat(server.getPermittedCount()).isEqualTo(1);
            // The filter after the bulkhead's runs in ASYNC dispatches too, which the startup check found out.
            assertThat(output.toString().substring(output.toString().lastIndexOf(STARTING)))
                .doesNotContain("come after the server bulkhead's filter");
        });
        // What that check calls reflectively.
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(AsyncFilter.class.getDeclaredMethod("shouldNotFilterAsyncDispatch"))).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
            .onMethodInvocation(OncePerRequestFilter.class.getDeclaredMethod("shouldNotFilterAsyncDispatch")))
            .accepts(hints);
    }

    private static void assertSecondCallRejected(LoopbackServer callee, Bulkhead bulkhead, Supplier<String> call) {
        Thread holder = Thread.ofVirtual().start(call::get);
        await().until(() -> callee.concurrent() == 1);
        assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(call::get)
            .satisfies((ex) -> assertThat(ex.getBulkheadName()).isEqualTo(bulkhead.getName()));
        callee.release();
        join(holder);
        assertThat(bulkhead.getPermittedCount()).isEqualTo(1);
        assertThat(bulkhead.getRejectedCount()).isEqualTo(1);
    }

    /**
     * Processes a context of {@code configuration} ahead of time, compiles the generated code and runs
     * {@code assertions} on a fresh context of the same kind that the generated initializer alone defines.
     */
    static <C extends GenericApplicationContext> RuntimeHints runAheadOfTime(Supplier<C> contexts, Map<String, Object> properties,
            Class<?> configuration, ThrowingConsumer<C> assertions) {
        return runAheadOfTime(contexts, properties, Map.of(), configuration, assertions);
    }

    /** As above, the application running with {@code atRuntime} over the properties it was built with. */
    static <C extends GenericApplicationContext> RuntimeHints runAheadOfTime(Supplier<C> contexts, Map<String, Object> properties,
            Map<String, Object> atRuntime, Class<?> configuration, ThrowingConsumer<C> assertions) {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("spring.threads.virtual.enabled", "true");
        all.putAll(properties);
        Map<String, Object> running = new LinkedHashMap<>(all);
        running.putAll(atRuntime);
        C context = contexts.get();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", all));
        AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
        context.registerBean(configuration);
        TestGenerationContext generation = new TestGenerationContext(configuration);
        ClassName initializer = new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        generation.writeGeneratedContent();
        TestCompiler.forSystem().with(generation).compile((compiled) -> {
            C fresh = contexts.get();
            fresh.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test", running));
            @SuppressWarnings("unchecked")
            ApplicationContextInitializer<GenericApplicationContext> generated = compiled
                .getInstance(ApplicationContextInitializer.class, initializer.toString());
            generated.initialize(fresh);
            System.out.println(STARTING);
            fresh.refresh();
            try {
                assertions.accept(fresh);
            }
            finally {
                fresh.close();
            }
        });
        return generation.getRuntimeHints();
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(10, TimeUnit.SECONDS)).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static void join(Thread thread) {
        try {
            assertThat(thread.join(java.time.Duration.ofSeconds(10))).isTrue();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** What an application on the starter has: its auto-configurations and a bean with a bounded method. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ LoomBulkheadAutoConfiguration.class, LoomBulkheadInactiveAutoConfiguration.class,
            LoomBulkheadMetricsAutoConfiguration.class, LoomBulkheadEndpointAutoConfiguration.class,
            LoomBulkheadClusterAutoConfiguration.class, LoomBulkheadServerWarningAutoConfiguration.class,
            TaskExecutionAutoConfiguration.class, MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class })
    static class Application {

        @Bean
        Service service() {
            return new Service();
        }

        @Bean
        SimpleMeterRegistry simpleMeterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    /** An application with an {@code Executor} of its own, so that Spring Boot creates no executor. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ LoomBulkheadAutoConfiguration.class, TaskExecutionAutoConfiguration.class })
    static class WithExecutor {

        @Bean
        java.util.concurrent.ExecutorService myExecutor() {
            return java.util.concurrent.Executors.newVirtualThreadPerTaskExecutor();
        }
    }

    /** An application calling HTTP services through service groups: one bounded by annotation, one by configuration. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ LoomBulkheadAutoConfiguration.class, LoomBulkheadInactiveAutoConfiguration.class,
            LoomBulkheadHttpAutoConfiguration.class, HttpClientAutoConfiguration.class,
            ImperativeHttpClientAutoConfiguration.class, HttpServiceClientPropertiesAutoConfiguration.class,
            RestClientAutoConfiguration.class, HttpServiceClientAutoConfiguration.class })
    @ImportHttpServices(group = "callee", types = io.github.loombulkhead.autoconfigure.http.CalleeClient.class)
    @ImportHttpServices(group = "plain", types = io.github.loombulkhead.autoconfigure.http.PlainClient.class)
    static class HttpApplication {

    }

    /** An application whose bulkhead shares its limit with other processes through Redis. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ DataRedisAutoConfiguration.class, LoomBulkheadAutoConfiguration.class,
            LoomBulkheadClusterAutoConfiguration.class })
    static class ClusterApplication {

    }

    /** A servlet application with the server bulkhead. */
    @Configuration(proxyBeanMethods = false)
    @ImportAutoConfiguration({ LoomBulkheadAutoConfiguration.class, LoomBulkheadServerAutoConfiguration.class,
            LoomBulkheadServerWarningAutoConfiguration.class })
    static class ServerApplication {

        @Bean
        AsyncFilter asyncFilter() {
            return new AsyncFilter();
        }
    }

    /** A filter of the application without an order of its own: it comes after the bulkhead's. */
    static class AsyncFilter extends OncePerRequestFilter {

        @Override
        protected boolean shouldNotFilterAsyncDispatch() {
            return false;
        }

        @Override
        protected void doFilterInternal(jakarta.servlet.http.HttpServletRequest request,
                jakarta.servlet.http.HttpServletResponse response, jakarta.servlet.FilterChain chain)
                throws jakarta.servlet.ServletException, IOException {
            chain.doFilter(request, response);
        }
    }

    /** An overload signal of the application's own, named in {@code drop-exceptions}. */
    static class Overloaded extends RuntimeException {

    }

    /** A bean whose method holds a permit of the bulkhead {@code svc}. */
    static class Service {

        @io.github.loombulkhead.annotation.Bulkhead("svc")
        public void hold(CountDownLatch entered, CountDownLatch release) {
            entered.countDown();
            awaitLatch(release);
        }
    }
}
