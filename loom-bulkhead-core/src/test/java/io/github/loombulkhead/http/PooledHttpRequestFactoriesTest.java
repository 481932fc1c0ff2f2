package io.github.loombulkhead.http;

import java.io.Closeable;
import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ProxySelector;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.sun.net.httpserver.HttpServer;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.ExternalLimit;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.http.ResponseEntity;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/** The HttpClient 5 pool agrees with the bulkhead limits, and the timeouts given are the ones used. */
@ExtendWith(LoopbackServerExtension.class)
class PooledHttpRequestFactoriesTest {

    @AutoClose
    private final Resources resources = new Resources();

    @Test
    void perHostPoolGrowsWhenAHostsBulkheadGrows(LoopbackServer server) throws Exception {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        BulkheadConfig template = BulkheadConfig.custom().maxConcurrentCalls(5).build();
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(track(PooledHttpRequestFactories.forHosts(registry, "host:", template, 2).build()))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "host:", template, 2))
            .build();
        Calls.concurrently(40, (i) -> client.get().uri("/slow?ms=50").retrieve().body(String.class));
        assertThat(server.maxConcurrent()).isEqualTo(5);

        Bulkhead host = registry.find("host:" + server.baseUrl()).orElseThrow();
        host.changeLimit(12);
        server.reset();
        Calls.concurrently(120, (i) -> client.get().uri("/slow?ms=50").retrieve().body(String.class));

        assertThat(server.maxConcurrent()).isEqualTo(12);
    }

    @Test
    void aPerHostClientFollowsRedirectsWithinItsHostAndAnswersThoseToAnotherHost(LoopbackServer server)
            throws Exception {
        // Another host: its redirect to the loopback server would run under this host's permit, bypassing the
        // loopback server's bulkhead and waiting for one of its route's connections.
        HttpServer redirector = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 10);
        redirector.createContext("/elsewhere", (exchange) -> {
            exchange.getResponseHeaders().set("Location", server.uri("/slow?ms=0").toString());
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        redirector.createContext("/here", (exchange) -> {
            exchange.getResponseHeaders().set("Location", "/ok");
            exchange.sendResponseHeaders(302, -1);
            exchange.close();
        });
        redirector.createContext("/ok", (exchange) -> {
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        redirector.start();
        this.resources.add(() -> redirector.stop(0));
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        BulkheadConfig template = BulkheadConfig.custom().maxConcurrentCalls(2).build();
        RestClient client = RestClient.builder()
            .baseUrl("http://127.0.0.1:" + redirector.getAddress().getPort())
            .requestFactory(track(PooledHttpRequestFactories.forHosts(registry, "host:", template, 4).build()))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perHost(registry, "host:", template, 4))
            .build();

        assertThat(client.get().uri("/here").retrieve().body(String.class)).isEqualTo("ok");
        ResponseEntity<Void> elsewhere = client.get().uri("/elsewhere").retrieve().toBodilessEntity();
        assertThat(elsewhere.getStatusCode().value()).isEqualTo(302);
        assertThat(server.requests()).isZero();
        // Followed by the caller, the call takes the other host's permit.
        assertThat(client.get().uri(elsewhere.getHeaders().getLocation()).retrieve().body(String.class))
            .isEqualTo("ok");
        assertThat(registry.find("host:" + server.baseUrl()).orElseThrow().getCompletedCount()).isEqualTo(1);
    }

    @Test
    void anAdaptiveBulkheadsPoolIsSizedToItsCeilingSoThePoolNeverCapsTheAlgorithm(LoopbackServer server)
            throws Exception {
        Bulkhead bulkhead = new Bulkhead("adaptive", BulkheadConfig.custom()
            .maxConcurrentCalls(30)
            .adaptive(io.github.loombulkhead.limit.AdaptiveLimitConfig.custom().initialLimit(5).minLimit(2).build())
            .build());
        assertThat(bulkhead.getLimit()).isEqualTo(5);
        assertThat(PooledHttpRequestFactories.poolLimit(bulkhead)).isEqualTo(30);
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(track(PooledHttpRequestFactories.forBulkhead(bulkhead).build()))
            .build();

        // Without the bulkhead's interceptor, only the pool bounds the calls: its ceiling (plus the few
        // connections kept for calls that hold no permit), never the algorithm's starting limit.
        Calls.concurrently(80, (i) -> client.get().uri("/slow?ms=100").retrieve().body(String.class));

        assertThat(server.maxConcurrent()).isBetween(30, 79);
    }

    @Test
    void callsWaitingWhenTheLimitIsRaisedGetAConnectionAtOnce(LoopbackServer server) throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(2).build());
        waitingCallsGetAConnectionOnceRaised(server, bulkhead, () -> bulkhead.changeLimit(4));
    }

    @Test
    void aLeasedLimitGrowsThePoolWhenItsOwnerRaisesTheBoundAndThePermits(LoopbackServer server) throws Exception {
        Bulkhead bulkhead = new Bulkhead("leased", BulkheadConfig.custom().maxConcurrentCalls(2).build());
        ExternalLimit leased = ExternalLimit.attach(bulkhead, new ExternalLimit.Owner() {
            @Override
            public void onQueued(Bulkhead b) {
            }

            @Override
            public void onMaxConcurrentCallsChanged(Bulkhead b, int maxConcurrentCalls) {
            }
        });
        leased.grow(2);
        // What a cluster owner does when another process raised the bound: the new bound, then the permits.
        waitingCallsGetAConnectionOnceRaised(server, bulkhead, () -> {
            bulkhead.changeLimit(4);
            leased.grow(4);
        });
    }

    /**
     * Four calls against {@code bulkhead}'s limit of 2: two run, two wait. After {@code raise} takes the limit to 4,
     * the pool grew before the waiting calls got their permits, so they do not queue again for a connection.
     */
    private void waitingCallsGetAConnectionOnceRaised(LoopbackServer server, Bulkhead bulkhead, Runnable raise)
            throws Exception {
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(track(PooledHttpRequestFactories.forBulkhead(bulkhead)
                // Longer than the await below: a call stuck in the pool would be noticed, not time out.
                .connectionRequestTimeout(Duration.ofSeconds(60))
                .build()))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        Callers streams = Callers.start(4, streamed(client));
        await().atMost(Duration.ofSeconds(10))
            .until(() -> server.concurrent() == 2 && bulkhead.getWaitingCount() == 2);

        raise.run();

        await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 4);
        server.release();
        streams.join();
        assertThat(server.maxConcurrent()).isEqualTo(4);
    }

    @Test
    void aLimitRaisedBetweenTheBuilderAndBuildSizesThePool(LoopbackServer server) throws Exception {
        Bulkhead bulkhead = new Bulkhead("raised-early", BulkheadConfig.custom().maxConcurrentCalls(2).build());
        Bulkhead other = new Bulkhead("raised-early-other", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        var single = PooledHttpRequestFactories.forBulkhead(bulkhead).connectionRequestTimeout(Duration.ofSeconds(60));
        var summed = PooledHttpRequestFactories.forBulkheads(List.of(bulkhead, other))
            .connectionRequestTimeout(Duration.ofSeconds(60));
        bulkhead.changeLimit(4);
        for (var builder : List.of(single, summed)) {
            server.reset();
            RestClient client = RestClient.builder()
                .baseUrl(server.baseUrl())
                .requestFactory(track(builder.build()))
                .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
                .build();
            Callers streams = Callers.start(4, streamed(client));
            await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 4);
            server.release();
            streams.join();
            assertThat(server.maxConcurrent()).isEqualTo(4);
        }
    }

    @Test
    void aPoolSharedBySeveralBulkheadsFitsTheSumOfTheirLimitsAndFollowsEachRaise(LoopbackServer server)
            throws Exception {
        Bulkhead reports = new Bulkhead("reports", BulkheadConfig.custom().maxConcurrentCalls(2).build());
        Bulkhead search = new Bulkhead("search", BulkheadConfig.custom().maxConcurrentCalls(3).build());
        // One factory for two clients, as for an HTTP service group whose interfaces name different bulkheads.
        var factory = track(PooledHttpRequestFactories.forBulkheads(List.of(reports, search))
            .connectionRequestTimeout(Duration.ofSeconds(60))
            .build());
        RestClient reportsClient = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(reports))
            .build();
        RestClient searchClient = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(search))
            .build();
        Callers streams = Callers.start(4, streamed(reportsClient)).andStart(4, streamed(searchClient));
        await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 5
                && reports.getWaitingCount() == 2 && search.getWaitingCount() == 1);

        reports.changeLimit(4);

        // 4 + 3: the pool grew past the sum it started with (5) and past the largest single limit (4).
        await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 7);
        server.release();
        streams.join();
        assertThat(server.maxConcurrent()).isEqualTo(7);
    }

    @Test
    void reservedConnectionsServeUnboundedCallsBesideTheBoundedOnesAndStayWhenTheLimitIsRaised(
            LoopbackServer server) throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(2).build());
        // One pool for a bounded and an unbounded client, as for an HTTP service group with unannotated methods.
        var factory = track(PooledHttpRequestFactories.forBulkhead(bulkhead)
            .reserveForUnboundedCalls(3, 3)
            .connectionRequestTimeout(Duration.ofSeconds(60))
            .build());
        RestClient bounded = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        RestClient unbounded = RestClient.builder().baseUrl(server.baseUrl()).requestFactory(factory).build();
        Callers streams = Callers.start(4, streamed(bounded));
        await().atMost(Duration.ofSeconds(10))
            .until(() -> server.concurrent() == 2 && bulkhead.getWaitingCount() == 2);
        streams.andStart(4, streamed(unbounded));
        // Beside the bounded calls' 2, the unbounded calls get the 3 reserved connections; the fourth waits.
        await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 5);

        bulkhead.changeLimit(4);

        // The raise grows the pool by the same amount, so the reserve is still there: 4 + 3 at once.
        await().atMost(Duration.ofSeconds(10)).until(() -> server.concurrent() == 7);
        server.release();
        streams.join();
        assertThat(server.maxConcurrent()).isEqualTo(7);
    }

    @Test
    void theConnectionRequestTimeoutBoundsCallersThatBypassTheBulkhead(LoopbackServer server) throws Exception {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(1).build());
        RestClient bypassing = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(track(PooledHttpRequestFactories.forBulkhead(bulkhead)
                .connectionRequestTimeout(Duration.ofMillis(200))
                .build()))
            .build();
        ClientHttpResponse open = bypassing.get().uri("/stream").exchange((request, response) -> response, false);

        long start = System.nanoTime();
        assertThatExceptionOfType(ResourceAccessException.class)
            .isThrownBy(() -> bypassing.get().uri("/slow?ms=0").retrieve().body(String.class));
        long waitedMillis = (System.nanoTime() - start) / 1_000_000;

        assertThat(waitedMillis).isBetween(150L, 10_000L);
        assertThat(server.requests()).isEqualTo(1);
        server.release();
        open.close();
    }

    @Test
    void theReadTimeoutIsApplied(LoopbackServer server) {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.ofDefaults());
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(track(PooledHttpRequestFactories.forBulkhead(bulkhead)
                .readTimeout(Duration.ofMillis(200))
                .build()))
            .build();

        assertThatExceptionOfType(ResourceAccessException.class)
            .isThrownBy(() -> client.get().uri("/hang").retrieve().body(String.class))
            .withMessageContaining("Read timed out");
    }

    @Test
    void a503OrA429IsAnsweredAtOnceNotRetriedWhileTheCallHoldsItsPermit(LoopbackServer server) {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.ofDefaults());
        RestClient client = RestClient.builder()
            .baseUrl(server.baseUrl())
            .requestFactory(track(PooledHttpRequestFactories.forBulkhead(bulkhead).build()))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(bulkhead))
            .build();
        for (int status : new int[] { 503, 429 }) {
            // HttpClient 5's default strategy would send it again after a second (or the server's Retry-After).
            Integer answered = client.get()
                .uri("/status/" + status)
                .exchange((request, response) -> response.getStatusCode().value());
            assertThat(answered).isEqualTo(status);
        }
        assertThat(server.requests()).isEqualTo(2);
        assertThat(bulkhead.getCompletedCount()).isEqualTo(2);
    }

    @Test
    void theSystemProxyIsUsedAsBySpringsDefaultClient(LoopbackServer server) {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.ofDefaults());
        ProxySelector previous = ProxySelector.getDefault();
        // The loopback server acts as the proxy: it gets the absolute-form request for the unresolvable host.
        ProxySelector.setDefault(ProxySelector.of(new InetSocketAddress("127.0.0.1", server.port())));
        try {
            RestClient client = RestClient.builder()
                .requestFactory(track(PooledHttpRequestFactories.forBulkhead(bulkhead).build()))
                .build();

            assertThat(client.get().uri("http://callee.invalid/slow?ms=0").retrieve().body(String.class))
                .isEqualTo("ok");
        }
        finally {
            ProxySelector.setDefault(previous);
        }
        assertThat(server.requests()).isEqualTo(1);
    }

    @Test
    void closingAFactoryOrItsClientTakesItsListenersOffTheBulkheads() throws Exception {
        BulkheadRegistry registry = BulkheadRegistry.ofDefaults();
        BulkheadConfig template = BulkheadConfig.custom().maxConcurrentCalls(3).build();
        Bulkhead callee = registry.bulkhead("callee");
        Bulkhead other = registry.bulkhead("other");
        registry.bulkhead("host:http://a:80", template);
        List<WeakReference<BulkheadListener>> listeners = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            PooledHttpRequestFactories.Builder builder = switch (i % 3) {
                case 0 -> PooledHttpRequestFactories.forBulkhead(callee);
                case 1 -> PooledHttpRequestFactories.forBulkheads(List.of(callee, other));
                default -> PooledHttpRequestFactories.forHosts(registry, "host:", template, 4);
            };
            PoolBinding[] binding = new PoolBinding[1];
            HttpComponentsClientHttpRequestFactory factory = builder
                .httpClient((client) -> binding[0] = ((UnbindingClientBuilder) client)
                    .binding())
                .build();
            assertThat(binding[0].boundCount()).isEqualTo((i % 3 == 1) ? 2 : 1);
            listeners.add(new WeakReference<>(binding[0].listener()));
            if (i % 2 == 0) {
                factory.destroy();
            }
            else {
                ((Closeable) factory.getHttpClient()).close();
            }
            assertThat(binding[0].boundCount()).isZero();
        }
        // A host seen after the factories were closed joins none of their pools.
        Bulkhead late = registry.bulkhead("host:http://b:80", template);

        // Neither the bulkheads nor the registry, all still in use, keep a listener of a closed pool.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            System.gc();
            return listeners.stream().allMatch((reference) -> reference.get() == null);
        });
        Reference.reachabilityFence(registry);
        Reference.reachabilityFence(callee);
        Reference.reachabilityFence(other);
        Reference.reachabilityFence(late);
    }

    @Test
    void badArgumentsAreRefusedWithTheirNameAndValue() {
        Bulkhead bulkhead = new Bulkhead("callee", BulkheadConfig.ofDefaults());
        var builder = PooledHttpRequestFactories.forBulkhead(bulkhead);

        assertThatIllegalArgumentException().isThrownBy(() -> builder.connectTimeout(Duration.ZERO))
            .withMessage("connectTimeout must be positive but was PT0S");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.readTimeout(Duration.ofSeconds(-1)))
            .withMessage("readTimeout must be positive but was PT-1S");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.connectionRequestTimeout(null))
            .withMessage("connectionRequestTimeout must be positive but was null");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> PooledHttpRequestFactories.forBulkheads(List.of()))
            .withMessage("bulkheads must not be empty or contain null but was []");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> PooledHttpRequestFactories.forHosts(BulkheadRegistry.ofDefaults(), "host:",
                    BulkheadConfig.ofDefaults(), 0))
            .withMessage("maxHosts must be at least 1 but was 0");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BulkheadClientHttpRequestInterceptor.perHost(BulkheadRegistry.ofDefaults(), "host:",
                    BulkheadConfig.ofDefaults(), -3))
            .withMessage("maxHosts must be at least 1 but was -3");
        assertThatIllegalArgumentException().isThrownBy(() -> builder.reserveForUnboundedCalls(5, 4))
            .withMessage("reserved connections must satisfy 0 <= maxPerRoute <= maxTotal but were maxPerRoute=5, "
                    + "maxTotal=4");
    }

    /** A call to {@code /stream} that gets the whole body once the server is released. */
    private static Runnable streamed(RestClient client) {
        return () -> assertThat(client.get().uri("/stream").retrieve().body(String.class)).isEqualTo("first\nlast\n");
    }

    private HttpComponentsClientHttpRequestFactory track(HttpComponentsClientHttpRequestFactory factory) {
        this.resources.add(factory::destroy);
        return factory;
    }

    @Test
    void poolSizesAddTheReservedConnectionsAndSaturateInsteadOfOverflowing() {
        assertThat(PooledHttpRequestFactories.maxConnPerRoute(20, 5)).isEqualTo(25);
        assertThat(PooledHttpRequestFactories.maxConnTotal(20, 3, 25)).isEqualTo(85);
        assertThat(PooledHttpRequestFactories.maxConnPerRoute(Integer.MAX_VALUE, 5)).isEqualTo(Integer.MAX_VALUE);
        assertThat(PooledHttpRequestFactories.maxConnTotal(Integer.MAX_VALUE / 2, 3, 0)).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void thePoolLimitOfSeveralBulkheadsCountsEachOnceAndSaturates() {
        Bulkhead small = new Bulkhead("small", BulkheadConfig.custom().maxConcurrentCalls(3).build());
        Bulkhead huge = new Bulkhead("huge", BulkheadConfig.custom().maxConcurrentCalls(Integer.MAX_VALUE).build());
        assertThat(PooledHttpRequestFactories.poolLimit(List.of(small, small))).isEqualTo(3);
        assertThat(PooledHttpRequestFactories.poolLimit(List.of(small, huge))).isEqualTo(Integer.MAX_VALUE);
    }
}
