package io.github.loombulkhead.http;

import java.lang.reflect.Method;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.method.annotation.ExceptionHandlerMethodResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * 200 concurrent calls through a {@code RestClient} bounded to N never show more than N requests at a
 * real loopback server, per client and per host, with each of the three request factories.
 */
class BulkheadClientHttpRequestInterceptorConcurrencyTest {

    private static final int CALLS = 200;

    private static final int LIMIT = 10;

    /**
     * How long the server holds each request. Long against the client's own overhead per call, so the
     * limit is reached (asserted exactly) even when a loaded machine slows the client down.
     */
    private static final int HOLD_MS = 50;

    private final List<AutoCloseable> resources = new ArrayList<>();

    private LoopbackServer server;

    @BeforeEach
    void startServer() throws Exception {
        this.server = LoopbackServer.start();
        this.resources.add(this.server);
    }

    @AfterEach
    void closeResources() throws Exception {
        for (AutoCloseable resource : this.resources.reversed()) {
            resource.close();
        }
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void perClientBulkheadBoundsWhatTheServerSees(ClientKind kind) throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build());
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(kind.create(bulkhead, Duration.ofSeconds(10), this.resources))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();

        List<String> bodies = Calls.concurrently(CALLS,
                (i) -> client.get().uri("/slow?ms=" + HOLD_MS).retrieve().body(String.class));

        assertThat(bodies).hasSize(CALLS).containsOnly("ok");
        assertThat(this.server.requests()).isEqualTo(CALLS);
        assertThat(this.server.maxConcurrent()).isEqualTo(LIMIT);
        assertAllFree(bulkhead, CALLS);
    }

    @Test
    void withoutTheInterceptorTheServerSeesMoreThanTheLimit() throws Exception {
        HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        this.resources.add(jdk);
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(new JdkClientHttpRequestFactory(jdk))
            .build();

        Calls.concurrently(CALLS, (i) -> client.get().uri("/slow?ms=50").retrieve().body(String.class));

        assertThat(this.server.maxConcurrent()).isGreaterThan(2 * LIMIT);
    }

    @Test
    void perHostBulkheadsBoundEachHostSeparately() throws Exception {
        ConcurrencyGauge both = new ConcurrencyGauge();
        LoopbackServer first = LoopbackServer.start(both);
        LoopbackServer second = LoopbackServer.start(both);
        this.resources.add(first);
        this.resources.add(second);
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        BulkheadConfig template = BulkheadConfig.custom().maxConcurrentCalls(5).build();
        var factory = PooledHttpRequestFactories.forHosts(registry, "host:", template, 4).build();
        this.resources.add(factory::destroy);
        RestClient client = RestClient.builder()
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "host:", template, 4))
            .build();

        List<String> bodies = Calls.concurrently(CALLS, (i) -> client.get()
            .uri(((i % 2 == 0) ? first : second).uri("/slow?ms=" + HOLD_MS))
            .retrieve()
            .body(String.class));

        assertThat(bodies).containsOnly("ok");
        assertThat(first.maxConcurrent()).isEqualTo(5);
        assertThat(second.maxConcurrent()).isEqualTo(5);
        assertThat(both.max()).as("hosts do not share one limit").isGreaterThan(5);
        Bulkhead firstBulkhead = registry.find("host:http://127.0.0.1:" + first.port()).orElseThrow();
        Bulkhead secondBulkhead = registry.find("host:http://127.0.0.1:" + second.port()).orElseThrow();
        assertAllFree(firstBulkhead, CALLS / 2);
        assertAllFree(secondBulkhead, CALLS / 2);
        assertThat(registry.getAllBulkheads()).hasSize(2);
    }

    @Test
    void perHostRefusesOneHostTooManyWithoutHoldingPermits() throws Exception {
        LoopbackServer other = LoopbackServer.start();
        this.resources.add(other);
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        RestClient client = RestClient.builder()
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "host:",
                    BulkheadConfig.custom().maxConcurrentCalls(2).build(), 1))
            .build();
        assertThat(client.get().uri(this.server.uri("/slow?ms=0")).retrieve().body(String.class)).isEqualTo("ok");

        assertThatExceptionOfType(TooManyHostsException.class)
            .isThrownBy(() -> client.get().uri(other.uri("/slow?ms=0")).retrieve().body(String.class))
            .withMessageContaining("maxHosts=1")
            .withMessageContaining(other.baseUrl())
            .satisfies((ex) -> assertThat(ex.getTarget()).isEqualTo(other.baseUrl()));
        assertThat(other.requests()).isZero();
        assertThat(registry.getAllBulkheads()).singleElement()
            .satisfies((bulkhead) -> assertAllFree(bulkhead, 1));
    }

    @Test
    void oneHostTooManyIsAnsweredLikeAnyRejection() throws Exception {
        LoopbackServer other = LoopbackServer.start();
        this.resources.add(other);
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        RestClient client = RestClient.builder()
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "host:",
                    BulkheadConfig.custom().maxConcurrentCalls(2).build(), 1))
            .build();
        client.get().uri(this.server.uri("/slow?ms=0")).retrieve().body(String.class);

        Throwable refused = catchThrowable(
                () -> client.get().uri(other.uri("/slow?ms=0")).retrieve().body(String.class));

        assertThat(refused).isInstanceOfSatisfying(BulkheadRejectedException.class, (ex) -> {
            assertThat(ex.getBulkheadName()).isEqualTo("host:" + other.baseUrl());
            assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
        });
        // Spring MVC picks an application's handler for rejections the same way.
        Method handler = new ExceptionHandlerMethodResolver(RejectionAdvice.class).resolveMethod((Exception) refused);
        assertThat(handler).isNotNull();
        assertThat(AnnotatedElementUtils.findMergedAnnotation(handler, ResponseStatus.class).code())
            .isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(other.requests()).isZero();
        assertThat(registry.getAllBulkheads()).singleElement()
            .satisfies((bulkhead) -> assertAllFree(bulkhead, 1));
    }

    @Test
    void aSingleHostCanBeTunedByName() throws Exception {
        LoopbackServer tuned = LoopbackServer.start();
        this.resources.add(tuned);
        BulkheadRegistry registry = BulkheadRegistry.builder()
            .config("host:" + tuned.baseUrl(), BulkheadConfig.custom().maxConcurrentCalls(2).build())
            .build();
        BulkheadConfig template = BulkheadConfig.custom().maxConcurrentCalls(6).build();
        String tunedName = "host:" + tuned.baseUrl();
        var factory = PooledHttpRequestFactories.forHosts(registry, "host:", template, 4).build();
        this.resources.add(factory::destroy);
        RestClient client = RestClient.builder()
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "host:",
                    (name) -> name.equals(tunedName) ? null : template, 4))
            .build();

        Calls.concurrently(60, (i) -> client.get()
            .uri(((i % 2 == 0) ? this.server : tuned).uri("/slow?ms=" + HOLD_MS))
            .retrieve()
            .body(String.class));

        assertThat(this.server.maxConcurrent()).isEqualTo(6);
        assertThat(tuned.maxConcurrent()).isEqualTo(2);
        assertThat(registry.find(tunedName).orElseThrow().getLimit()).isEqualTo(2);
    }

    @Test
    void theDefaultHttpComponentsPoolIsAHiddenSecondLimit() throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build());
        HttpComponentsClientHttpRequestFactory defaults = new HttpComponentsClientHttpRequestFactory();
        this.resources.add(defaults::destroy);
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(defaults)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();

        Calls.concurrently(60, (i) -> client.get().uri("/slow?ms=" + HOLD_MS).retrieve().body(String.class));

        // HttpClient 5's default pool allows 5 connections per route: calls holding one of the 10
        // permits queue again, out of the bulkhead's sight. The sized pool removes that (test above).
        assertThat(this.server.maxConcurrent()).isEqualTo(5);
    }

    @Test
    void sizedPoolFollowsARuntimeLimitIncrease() throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(LIMIT).build());
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(ClientKind.HTTP_COMPONENTS.create(bulkhead, Duration.ofSeconds(10), this.resources))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        Calls.concurrently(50, (i) -> client.get().uri("/slow?ms=" + HOLD_MS).retrieve().body(String.class));
        assertThat(this.server.maxConcurrent()).isEqualTo(LIMIT);

        bulkhead.changeLimit(2 * LIMIT);
        this.server.reset();
        Calls.concurrently(CALLS, (i) -> client.get().uri("/slow?ms=" + HOLD_MS).retrieve().body(String.class));

        assertThat(this.server.maxConcurrent()).isEqualTo(2 * LIMIT);
        assertAllFree(bulkhead, 50 + CALLS);
    }

    @Test
    void restTemplateIsBoundedToo() throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(4).build());
        RestTemplate template = new RestTemplate(
                ClientKind.HTTP_COMPONENTS.create(bulkhead, Duration.ofSeconds(10), this.resources));
        template.getInterceptors().add(BulkheadClientHttpRequestInterceptor.perClient(bulkhead));

        List<String> bodies = Calls.concurrently(60,
                (i) -> template.getForObject(this.server.uri("/slow?ms=" + HOLD_MS), String.class));

        assertThat(bodies).containsOnly("ok");
        assertThat(this.server.maxConcurrent()).isEqualTo(4);
        assertAllFree(bulkhead, 60);
    }

    @Test
    void aFullBulkheadRejectsWithTheBulkheadsNameAndReason() throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee",
                BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build());
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        ClientHttpResponse open = client.get().uri("/stream").exchange((request, response) -> response, false);

        assertThatExceptionOfType(BulkheadRejectedException.class)
            .isThrownBy(() -> client.get().uri("/slow?ms=0").retrieve().body(String.class))
            .satisfies((ex) -> {
                assertThat(ex.getBulkheadName()).isEqualTo("callee");
                assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
            });
        this.server.openStreamGate();
        open.close();
        assertAllFree(bulkhead, 1);
        assertThat(bulkhead.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(1);
    }

    @Test
    void aWaitingCallGivesUpAfterMaxWait() throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee",
                BulkheadConfig.custom().maxConcurrentCalls(1).maxWaitDuration(Duration.ofMillis(100)).build());
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        ClientHttpResponse open = client.get().uri("/stream").exchange((request, response) -> response, false);

        CompletableFuture<String> waiting = CompletableFuture.supplyAsync(
                () -> client.get().uri("/slow?ms=0").retrieve().body(String.class),
                (task) -> Thread.ofVirtual().start(task));

        assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> waiting.get(10, TimeUnit.SECONDS))
            .havingCause()
            .isInstanceOfSatisfying(BulkheadRejectedException.class,
                    (ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT));
        this.server.openStreamGate();
        open.close();
        await().atMost(Duration.ofSeconds(5)).until(() -> bulkhead.getActiveCount() == 0);
        assertAllFree(bulkhead, 1);
    }

    static void assertAllFree(Bulkhead bulkhead, long calls) {
        assertThat(bulkhead.getActiveCount()).as("active").isZero();
        assertThat(bulkhead.getWaitingCount()).as("waiting").isZero();
        assertThat(bulkhead.getAvailablePermits()).as("available").isEqualTo(bulkhead.getLimit());
        assertThat(bulkhead.getPermittedCount()).as("permitted").isEqualTo(calls);
        assertThat(bulkhead.getCompletedCount()).as("released exactly once per call").isEqualTo(calls);
    }

    /** How an application answers a bulkhead's rejections. */
    static class RejectionAdvice {

        @ExceptionHandler(BulkheadRejectedException.class)
        @ResponseStatus(HttpStatus.SERVICE_UNAVAILABLE)
        void busy() {
        }
    }
}
