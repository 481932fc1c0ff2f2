package io.github.loombulkhead.annotation;

import java.io.InputStream;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.http.Calls;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.aop.Advisor;
import org.springframework.aop.framework.Advised;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.InputStreamResource;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.converter.ResourceHttpMessageConverter;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.support.RestClientHttpServiceGroupConfigurer;
import org.springframework.web.service.annotation.GetExchange;
import org.springframework.web.service.annotation.HttpExchange;
import org.springframework.web.service.registry.ImportHttpServices;

import static io.github.loombulkhead.annotation.AnnotationTestSupport.assertAllFree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Bulkhead} on HTTP interface clients registered by {@code @ImportHttpServices}, in a real
 * application context calling a real loopback server through a RestClient on the JDK HTTP client
 * (whose connection pool is unbounded, so only the annotation limits the calls).
 */
@ExtendWith(LoopbackServerExtension.class)
class HttpInterfaceBulkheadTest {

    private static final int CALLS = 200;

    private static HttpClient jdkClient;

    private static AnnotationConfigApplicationContext context;

    private static BulkheadRegistry registry;

    @BeforeAll
    static void start(LoopbackServer server) {
        jdkClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        context = new AnnotationConfigApplicationContext();
        context.registerBean(RestClientHttpServiceGroupConfigurer.class, () -> (groups) -> groups
            .forEachClient((group, builder) -> builder.baseUrl(server.baseUrl())
                .requestFactory(new JdkClientHttpRequestFactory(jdkClient))
                // Reads an InputStreamResource as a stream of the open response, not into memory.
                .messageConverters((converters) -> converters.add(0, new ResourceHttpMessageConverter(true)))));
        context.register(Config.class);
        context.refresh();
        registry = context.getBean(BulkheadRegistry.class);
    }

    @AfterAll
    static void stop() {
        context.close();
        jdkClient.close();
    }

    @BeforeEach
    void resetServer(LoopbackServer server) {
        server.reset();
    }

    @Test
    void aTypeAnnotationBoundsEveryCallOfTheClient(LoopbackServer server) throws Exception {
        CalleeClient client = context.getBean(CalleeClient.class);

        List<String> bodies = Calls.concurrently(CALLS, (i) -> client.slow(50));

        assertThat(bodies).hasSize(CALLS).containsOnly("ok");
        assertThat(server.requests()).isEqualTo(CALLS);
        assertThat(server.maxConcurrent()).isEqualTo(10);
        assertAllFree(registry.find("callee").orElseThrow(), CALLS);
    }

    @Test
    void aTypeAnnotationBoundsTheExchangeMethodsTheClientInheritsFromAnUnannotatedInterface(LoopbackServer server)
            throws Exception {
        InheritingClient client = context.getBean(InheritingClient.class);

        List<String> bodies = Calls.concurrently(40, (i) -> client.slow(50));

        assertThat(bodies).hasSize(40).containsOnly("ok");
        assertThat(server.maxConcurrent()).isEqualTo(2);
        assertAllFree(registry.find("inherited").orElseThrow(), 40);
    }

    @Test
    void anUnannotatedClientOnTheSameRestClientIsNotBounded(LoopbackServer server) throws Exception {
        UnboundedClient client = context.getBean(UnboundedClient.class);

        Calls.concurrently(CALLS, (i) -> client.slow(50));

        assertThat(server.maxConcurrent()).as("the server and client allow far more than the limit")
            .isGreaterThan(20);
    }

    @Test
    void aMethodAnnotationWinsOverTheTypeAnnotation(LoopbackServer server) throws Exception {
        CalleeClient client = context.getBean(CalleeClient.class);
        long calleeBefore = registry.bulkhead("callee").getPermittedCount();

        Calls.concurrently(60, (i) -> client.slowInFastLane(50));

        assertThat(server.maxConcurrent()).isEqualTo(3);
        assertAllFree(registry.find("callee-fast-lane").orElseThrow(), 60);
        assertThat(registry.bulkhead("callee").getPermittedCount()).isEqualTo(calleeBefore);
    }

    @Test
    void onlyTheAnnotatedMethodOfAnInterfaceIsBounded(LoopbackServer server) throws Exception {
        MethodAnnotatedClient client = context.getBean(MethodAnnotatedClient.class);

        Calls.concurrently(60, (i) -> client.bounded(50));
        assertThat(server.maxConcurrent()).isEqualTo(4);
        server.reset();
        Calls.concurrently(60, (i) -> client.unbounded(50));

        assertThat(server.maxConcurrent()).isGreaterThan(4);
        assertAllFree(registry.find("method-only").orElseThrow(), 60);
    }

    @Test
    void aRejectionReachesTheCallerOfTheClient(LoopbackServer server) throws Exception {
        MethodAnnotatedClient client = context.getBean(MethodAnnotatedClient.class);
        CompletableFuture<String> streaming = CompletableFuture.supplyAsync(client::stream,
                (task) -> Thread.ofVirtual().start(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> server.concurrent() == 1);

        assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(client::stream).satisfies((ex) -> {
            assertThat(ex.getBulkheadName()).isEqualTo("no-wait");
            assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL);
        });

        server.release();
        assertThat(streaming.get(5, TimeUnit.SECONDS)).isEqualTo("first\nlast\n");
        assertAllFree(registry.find("no-wait").orElseThrow(), 1);
        assertThat(server.requests()).isEqualTo(1);
    }

    @Test
    void aReturnedBodyStreamKeepsThePermitUntilItIsClosed(LoopbackServer server) throws Exception {
        MethodAnnotatedClient client = context.getBean(MethodAnnotatedClient.class);
        io.github.loombulkhead.Bulkhead streams = registry.bulkhead("streams");

        InputStream body = client.streamBody();
        try {
            assertThat(streams.getActiveCount()).as("held while the body is open").isEqualTo(1);
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(client::streamEntity)
                .satisfies((ex) -> assertThat(ex.getBulkheadName()).isEqualTo("streams"));
            server.release();
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("first\nlast\n");
            assertThat(streams.getActiveCount()).as("held until closed, not until read").isEqualTo(1);
        }
        finally {
            server.release();
            body.close();
        }
        body.close();
        assertAllFree(streams, 1);

        ResponseEntity<InputStream> entity = client.streamEntity();

        assertThat(entity.getStatusCode().value()).isEqualTo(200);
        assertThat(streams.getActiveCount()).isEqualTo(1);
        try (InputStream entityBody = entity.getBody()) {
            assertThat(new String(entityBody.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("first\nlast\n");
        }
        assertAllFree(streams, 2);
        assertThat(server.requests()).isEqualTo(2);
    }

    @Test
    void aDefaultMethodThatReturnsAnExchangesBodyHoldsThePermitUntilTheStreamIsClosed(LoopbackServer server)
            throws Exception {
        DefaultMethodClient client = context.getBean(DefaultMethodClient.class);
        io.github.loombulkhead.Bulkhead streams = registry.bulkhead("default-streams");

        InputStream body = client.latest();
        try {
            assertThat(streams.getActiveCount()).as("held while the body is open").isEqualTo(1);
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(client::latest);
            server.release();
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("first\nlast\n");
            assertThat(streams.getActiveCount()).as("held until closed").isEqualTo(1);
        }
        finally {
            server.release();
            body.close();
        }
        assertAllFree(streams, 1);
        assertThat(server.requests()).isEqualTo(1);
    }

    @Test
    void anInputStreamResourceBodyHoldsThePermitUntilItsStreamIsClosed(LoopbackServer server) throws Exception {
        // Read as a stream by a streaming ResourceHttpMessageConverter, which RestClient leaves open as an InputStream.
        MethodAnnotatedClient client = context.getBean(MethodAnnotatedClient.class);
        io.github.loombulkhead.Bulkhead streams = registry.bulkhead("resource-streams");

        InputStreamResource resource = client.streamResource();
        InputStream body = resource.getInputStream();
        try {
            assertThat(streams.getActiveCount()).as("held while the body is open").isEqualTo(1);
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(client::streamResource);
            server.release();
            assertThat(new String(body.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("first\nlast\n");
        }
        finally {
            server.release();
            body.close();
        }
        assertAllFree(streams, 1);
    }

    @Test
    void anAdaptiveBulkheadSamplesBodyStreamExchangesByTheirAnswer() throws Exception {
        MethodAnnotatedClient client = context.getBean(MethodAnnotatedClient.class);
        io.github.loombulkhead.Bulkhead streams = registry.bulkhead("adaptive-streams");
        List<Outcome> outcomes = new CopyOnWriteArrayList<>();
        streams.addListener(new BulkheadListener() {

            @Override
            public void onSample(io.github.loombulkhead.Bulkhead bulkhead, long rttNanos, Outcome outcome) {
                outcomes.add(outcome);
            }

            @Override
            public void onPausedSample(io.github.loombulkhead.Bulkhead bulkhead, long rttNanos, long pausedNanos) {
                // A success this process paused during (a loaded machine stalls the test JVM too) is still one.
                outcomes.add(Outcome.SUCCESS);
            }
        });

        try (InputStream body = client.streamStatus(200)) {
            assertThat(body.readAllBytes()).isNotEmpty();
        }
        assertThatExceptionOfType(HttpServerErrorException.ServiceUnavailable.class)
            .isThrownBy(() -> client.streamStatus(503));
        assertThatExceptionOfType(HttpClientErrorException.TooManyRequests.class)
            .isThrownBy(() -> client.streamStatus(429));

        assertThat(outcomes).containsExactly(Outcome.SUCCESS, Outcome.DROPPED, Outcome.DROPPED);
        assertAllFree(streams, 3);
    }

    @Test
    void theBulkheadAdviceRunsRightBeforeTheHttpExchange() {
        CalleeClient client = context.getBean(CalleeClient.class);

        assertThat(client).isInstanceOf(Advised.class);
        Advisor[] advisors = ((Advised) client).getAdvisors();
        assertThat(advisors).hasSize(2);
        assertThat(advisors[0]).isInstanceOf(BulkheadAnnotationAdvisor.class);
        assertThat(advisors[1].getAdvice().getClass().getName()).contains("HttpServiceMethodInterceptor");
    }

    @Bulkhead("callee")
    @HttpExchange
    interface CalleeClient {

        @GetExchange("/slow")
        String slow(@RequestParam("ms") int ms);

        @Bulkhead("callee-fast-lane")
        @GetExchange("/slow")
        String slowInFastLane(@RequestParam("ms") int ms);
    }

    /** Shared by clients of several callees, annotated by none of them. */
    @HttpExchange
    interface SlowExchanges {

        @GetExchange("/slow")
        String slow(@RequestParam("ms") int ms);
    }

    @Bulkhead("inherited")
    @HttpExchange
    interface InheritingClient extends SlowExchanges {

        @GetExchange("/slow")
        String own(@RequestParam("ms") int ms);
    }

    @HttpExchange
    interface UnboundedClient {

        @GetExchange("/slow")
        String slow(@RequestParam("ms") int ms);
    }

    @HttpExchange
    interface MethodAnnotatedClient {

        @Bulkhead(name = "method-only")
        @GetExchange("/slow")
        String bounded(@RequestParam("ms") int ms);

        @GetExchange("/slow")
        String unbounded(@RequestParam("ms") int ms);

        @Bulkhead("no-wait")
        @GetExchange("/stream")
        String stream();

        @Bulkhead("streams")
        @GetExchange("/stream")
        InputStream streamBody();

        @Bulkhead("streams")
        @GetExchange("/stream")
        ResponseEntity<InputStream> streamEntity();

        @Bulkhead("adaptive-streams")
        @GetExchange("/status/{status}")
        InputStream streamStatus(@PathVariable("status") int status);

        @Bulkhead("resource-streams")
        @GetExchange("/stream")
        InputStreamResource streamResource();
    }


    @Configuration(proxyBeanMethods = false)
    @ImportHttpServices(group = "callee",
            types = { CalleeClient.class, UnboundedClient.class, MethodAnnotatedClient.class, InheritingClient.class,
                    DefaultMethodClient.class })
    static class Config {

        @Bean
        static BulkheadRegistry bulkheadRegistry() {
            return BulkheadRegistry.builder()
                .config("callee", BulkheadConfig.custom().maxConcurrentCalls(10).build())
                .config("callee-fast-lane", BulkheadConfig.custom().maxConcurrentCalls(3).build())
                .config("inherited", BulkheadConfig.custom().maxConcurrentCalls(2).build())
                .config("method-only", BulkheadConfig.custom().maxConcurrentCalls(4).build())
                .config("no-wait", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build())
                .config("streams", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build())
                .config("default-streams", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build())
                .config("resource-streams", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build())
                .config("adaptive-streams", BulkheadConfig.custom()
                    .maxConcurrentCalls(50)
                    .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
                    .build())
                .build();
        }

        @Bean
        static BulkheadAnnotationBeanPostProcessor bulkheadAnnotationBeanPostProcessor(BulkheadRegistry registry) {
            return new BulkheadAnnotationBeanPostProcessor(registry);
        }
    }
}
