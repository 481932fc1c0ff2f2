package io.github.loombulkhead.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BoundedVirtualExecutor;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.CallChain;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import static io.github.loombulkhead.annotation.AnnotationTestSupport.assertAllFree;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A call chain holds at most one permit of a bulkhead: nested calls of the same bulkhead pass
 * through under the outer permit. Before, each of these needed two permits and, with every permit
 * held by an outer call, waited until the max wait ran out. Real loopback server, real RestClient
 * over Apache HttpClient 5, real Spring context.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@ExtendWith(LoopbackServerExtension.class)
public class NestedBulkheadCallTest {

    private static final int LIMIT = 5;

    private static final int TASKS = 10;

    private static AnnotationConfigApplicationContext context;

    private static BulkheadRegistry registry;

    @BeforeAll
    static void start(LoopbackServer server) {
        registry = BulkheadRegistry.builder()
            .config("callee", nested())
            .config("annotated", nested())
            .config("service", nested())
            .config("streamed", nested())
            .build();
        context = new AnnotationConfigApplicationContext();
        context.registerBean(BulkheadRegistry.class, () -> registry);
        context.registerBean(RestClientHttpServiceGroupConfigurer.class, () -> (groups) -> groups
            .forEachClient((group, builder) -> {
                builder.baseUrl(server.baseUrl())
                    .requestFactory(PooledHttpRequestFactories.forBulkhead(registry.bulkhead("annotated")).build());
                if (group.name().equals("streamed")) {
                    // Wired by hand: the client's own interceptor of the bulkhead its methods are annotated with.
                    builder.requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(registry.bulkhead("streamed")));
                }
            }));
        context.register(Config.class);
        context.refresh();
    }

    private static BulkheadConfig nested() {
        return BulkheadConfig.custom().maxConcurrentCalls(LIMIT).maxWaitDuration(Duration.ofSeconds(1)).build();
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    @BeforeEach
    void resetServer(LoopbackServer server) {
        server.reset();
    }

    @Test
    void anExecutorTaskCallingAClientOfTheSameBulkheadUsesItsOwnPermit(LoopbackServer server) throws Exception {
        var bulkhead = registry.bulkhead("callee");
        ClientHttpRequestFactory pooled = PooledHttpRequestFactories.forBulkhead(bulkhead).build();
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(pooled)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        List<CompletableFuture<String>> calls = new ArrayList<>();
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("callee").registry(registry).build()) {
            for (int i = 0; i < TASKS; i++) {
                calls.add(executor.supplyAsync(() -> client.get().uri("/slow?ms=300").retrieve().body(String.class)));
            }
            CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        }

        assertThat(calls).allSatisfy((call) -> assertThat(call.join()).isEqualTo("ok"));
        assertThat(server.requests()).isEqualTo(TASKS);
        assertThat(server.maxConcurrent()).isEqualTo(LIMIT);
        assertAllFree(bulkhead, TASKS);
    }

    @Test
    void aStageThatDependsOnAnExecutorFutureCallsTheSameBulkheadWithAPermitOfItsOwn(LoopbackServer server)
            throws Exception {
        BulkheadRegistry own = BulkheadRegistry.builder()
            .config("dependent", BulkheadConfig.custom()
                .maxConcurrentCalls(1)
                .maxWaitDuration(Duration.ofSeconds(30))
                .build())
            .build();
        var bulkhead = own.bulkhead("dependent");
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(PooledHttpRequestFactories.forBulkhead(bulkhead).build())
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        try (BoundedVirtualExecutor executor = BoundedVirtualExecutor.builder("dependent").registry(own).build()) {
            try {
                CountDownLatch finishFirst = new CountDownLatch(1);
                CompletableFuture<String> first = executor.supplyAsync(() -> {
                    awaitUninterruptibly(finishFirst);
                    return "first";
                });
                // Waits for the only permit, then holds it in an exchange the server keeps open until released.
                CompletableFuture<String> second = executor
                    .supplyAsync(() -> client.get().uri("/held").retrieve().body(String.class));
                // Registered before the first task ends, so it runs on that task's thread, after its permit went to the
                // second task: it must wait for a permit of its own, not pass through under the one given back.
                CompletableFuture<Boolean> dependent = first.thenApply((value) -> {
                    boolean markedAsHolding = CallChain.holds(bulkhead);
                    client.get().uri("/slow?ms=0").retrieve().body(String.class);
                    return markedAsHolding;
                });
                finishFirst.countDown();
                Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 1);
                assertThat(dependent).as("the dependent stage waits for the permit the second task holds").isNotDone();
                server.release();
                assertThat(second.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
                assertThat(dependent.get(30, TimeUnit.SECONDS)).as("marked as holding a permit").isFalse();
            }
            finally {
                // Also when an assertion failed: the held exchange ends, so closing the executor does not wait for it.
                server.release();
            }
        }
        assertThat(server.maxConcurrent()).as("exchanges at once under a limit of 1").isEqualTo(1);
        assertThat(server.requests()).isEqualTo(2);
        // The two tasks and the dependent stage's call; the second task's call ran under the task's permit.
        assertAllFree(bulkhead, 3);
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", ex);
        }
    }

    @Test
    void aBulkheadMethodCallingAnAnnotatedClientOfTheSameBulkheadTakesOnePermit(LoopbackServer server)
            throws Exception {
        Service service = context.getBean(Service.class);
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> service.callThrough(300),
                    (task) -> Thread.ofVirtual().start(task)));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(calls).allSatisfy((call) -> assertThat(call.join()).isEqualTo("ok"));
        assertThat(server.maxConcurrent()).isEqualTo(LIMIT);
        assertAllFree(registry.bulkhead("annotated"), TASKS);
    }

    @Test
    void aDefaultMethodCallingAnotherMethodOfTheSameInterfaceTakesOnePermit(LoopbackServer server) throws Exception {
        AnnotatedClient client = context.getBean(AnnotatedClient.class);
        long before = registry.bulkhead("annotated").getPermittedCount();
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> client.twice(300), (task) -> Thread.ofVirtual().start(task)));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(calls).allSatisfy((call) -> assertThat(call.join()).isEqualTo("okok"));
        assertThat(server.requests()).isEqualTo(2 * TASKS);
        assertThat(server.maxConcurrent()).isEqualTo(LIMIT);
        assertThat(registry.bulkhead("annotated").getPermittedCount() - before).isEqualTo(TASKS);
    }

    @Test
    void anAsyncBulkheadMethodCallingASynchronousOneOfTheSameBulkheadTakesOnePermit() throws Exception {
        Service service = context.getBean(Service.class);
        var bulkhead = registry.bulkhead("service");
        long before = bulkhead.getPermittedCount();
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            calls.add(service.asyncOuter(100));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(calls).allSatisfy((call) -> assertThat(call.join()).isEqualTo("inner 100"));
        assertThat(bulkhead.getPermittedCount() - before).isEqualTo(TASKS);
        assertThat(service.maxInner()).isEqualTo(LIMIT);
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    @Test
    void aBodyStreamMethodWhoseRestClientHasTheSameBulkheadTakesOnePermit(LoopbackServer server) throws Exception {
        StreamClient client = context.getBean(StreamClient.class);
        var bulkhead = registry.bulkhead("streamed");
        long before = bulkhead.getPermittedCount();
        List<CompletableFuture<String>> calls = new ArrayList<>();
        for (int i = 0; i < TASKS; i++) {
            calls.add(CompletableFuture.supplyAsync(() -> {
                try (java.io.InputStream body = client.slow(300)) {
                    return new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
                }
                catch (java.io.IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            }, (task) -> Thread.ofVirtual().start(task)));
        }
        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

        assertThat(calls).allSatisfy((call) -> assertThat(call.join()).isEqualTo("ok"));
        assertThat(server.maxConcurrent()).isEqualTo(LIMIT);
        assertThat(bulkhead.getPermittedCount() - before).isEqualTo(TASKS);
        assertAllFree(bulkhead, TASKS);
    }

    @Test
    void aDifferentBulkheadIsStillAcquired() {
        Service service = context.getBean(Service.class);
        var annotated = registry.bulkhead("annotated");
        long before = annotated.getPermittedCount();

        assertThat(service.otherBulkheadThenClient(10)).isEqualTo("ok");

        assertThat(annotated.getPermittedCount() - before).as("the client's own bulkhead").isEqualTo(1);
    }

    /** Public, so the HTTP service proxy may invoke its default method. */
    @Bulkhead("annotated")
    @HttpExchange
    public interface AnnotatedClient {

        @GetExchange("/slow")
        String slow(@RequestParam("ms") int ms);

        default String twice(int ms) {
            return slow(ms) + slow(ms);
        }
    }

    @Bulkhead("streamed")
    @HttpExchange
    public interface StreamClient {

        @GetExchange("/slow")
        java.io.InputStream slow(@RequestParam("ms") int ms);
    }

    @Component
    static class Service {

        private final AnnotatedClient client;

        private final java.util.concurrent.atomic.AtomicInteger inner = new java.util.concurrent.atomic.AtomicInteger();

        private final java.util.concurrent.atomic.AtomicInteger maxInner = new java.util.concurrent.atomic.AtomicInteger();

        private Service self;

        Service(AnnotatedClient client) {
            this.client = client;
        }

        @org.springframework.beans.factory.annotation.Autowired
        void setSelf(@org.springframework.context.annotation.Lazy Service self) {
            this.self = self;
        }

        @Bulkhead("annotated")
        public String callThrough(int ms) {
            return this.client.slow(ms);
        }

        @Bulkhead("service")
        public String otherBulkheadThenClient(int ms) {
            return this.client.slow(ms);
        }

        @Bulkhead("service")
        public CompletableFuture<String> asyncOuter(int ms) {
            return CompletableFuture.completedFuture(this.self.inner(ms));
        }

        @Bulkhead("service")
        public String inner(int ms) {
            this.maxInner.accumulateAndGet(this.inner.incrementAndGet(), Math::max);
            try {
                // Work that holds the permit for ms, so that the outer calls overlap.
                Thread.sleep(ms);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            finally {
                this.inner.decrementAndGet();
            }
            return "inner " + ms;
        }

        int maxInner() {
            return this.maxInner.get();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "nested", types = AnnotatedClient.class)
    @ImportHttpServices(group = "streamed", types = StreamClient.class)
    @org.springframework.context.annotation.Import(Service.class)
    static class Config {

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            return new BulkheadAnnotationBeanPostProcessor(registry);
        }
    }
}
