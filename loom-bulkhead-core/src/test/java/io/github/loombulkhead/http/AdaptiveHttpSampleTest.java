package io.github.loombulkhead.http;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * What an adaptive bulkhead learns from each HTTP exchange through the interceptor, against a real
 * loopback server and a RestClient over Apache HttpClient 5: timeouts, refused connections, 503 and
 * 429 are drops; other answers are successes with the time to the response headers; an exchange
 * that never reached a server is no sample.
 */
class AdaptiveHttpSampleTest {

    private final List<AutoCloseable> resources = new ArrayList<>();

    private final List<Outcome> samples = new CopyOnWriteArrayList<>();

    private final List<Duration> rtts = new CopyOnWriteArrayList<>();

    private LoopbackServer server;

    private Bulkhead bulkhead;

    private RestClient client;

    @BeforeEach
    void setUp() throws Exception {
        this.server = LoopbackServer.start();
        this.resources.add(this.server);
        this.bulkhead = new Bulkhead("adaptive-http", BulkheadConfig.custom()
            .maxConcurrentCalls(50)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
            .build());
        this.bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onSample(Bulkhead b, long rttNanos, Outcome outcome) {
                AdaptiveHttpSampleTest.this.samples.add(outcome);
                AdaptiveHttpSampleTest.this.rtts.add(Duration.ofNanos(rttNanos));
            }
        });
        var factory = PooledHttpRequestFactories.forBulkhead(this.bulkhead)
            .connectTimeout(Duration.ofSeconds(2))
            .readTimeout(Duration.ofMillis(300))
            .build();
        this.resources.add(factory::destroy);
        this.client = RestClient.builder()
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(this.bulkhead))
            .build();
    }

    @AfterEach
    void closeResources() throws Exception {
        for (AutoCloseable resource : this.resources.reversed()) {
            resource.close();
        }
    }

    @Test
    void answersAreSuccessesWithTheTimeToTheirHeaders() {
        assertThat(this.client.get().uri(this.server.uri("/slow?ms=200")).retrieve().body(String.class)).isEqualTo("ok");
        catchThrowable(() -> this.client.get().uri(this.server.uri("/status/500")).retrieve().body(String.class));
        assertThat(this.samples).containsExactly(Outcome.SUCCESS, Outcome.SUCCESS);
        assertThat(this.rtts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @Test
    void serviceUnavailableAndTooManyRequestsAreDrops() {
        catchThrowable(() -> this.client.get().uri(this.server.uri("/status/503")).retrieve().body(String.class));
        catchThrowable(() -> this.client.get().uri(this.server.uri("/status/429")).retrieve().body(String.class));
        assertThat(this.samples).containsExactly(Outcome.DROPPED, Outcome.DROPPED);
    }

    @Test
    void aReadTimeoutIsADrop() {
        assertThat(catchThrowable(() -> this.client.get().uri(this.server.uri("/hang")).retrieve().body(String.class)))
            .isNotNull();
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
        assertThat(this.rtts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @Test
    void aRefusedConnectionIsADrop() throws Exception {
        URI refused;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            refused = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/refused");
        }
        URI target = refused;
        assertThat(catchThrowable(() -> this.client.get().uri(target).retrieve().body(String.class))).isNotNull();
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
    }

    @Test
    void anExchangeThatNeverReachedAServerIsNoSample() {
        assertThat(catchThrowable(() -> this.client.get().uri("http://no-such-host.invalid/").retrieve()
            .body(String.class))).isNotNull();
        assertThat(this.samples).isEmpty();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getCompletedCount()).isEqualTo(1);
    }
}
