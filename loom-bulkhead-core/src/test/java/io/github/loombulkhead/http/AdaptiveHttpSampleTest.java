package io.github.loombulkhead.http;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.Outcome;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What an adaptive bulkhead learns from each HTTP exchange through the interceptor, against a real
 * loopback server and a RestClient over each request factory (Apache HttpClient 5, the JDK's client,
 * {@code HttpURLConnection}): timeouts, refused connections, 503 and
 * 429 are drops; other answers are successes with the time to the response headers; an exchange
 * that never reached a server is no sample.
 */
@ExtendWith(LoopbackServerExtension.class)
class AdaptiveHttpSampleTest {

    @AutoClose
    private final Resources resources = new Resources();

    private final List<Outcome> samples = new CopyOnWriteArrayList<>();

    private final List<Duration> rtts = new CopyOnWriteArrayList<>();

    private LoopbackServer server;

    private Bulkhead bulkhead;

    @BeforeEach
    void setUp(LoopbackServer server) {
        this.server = server;
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

            @Override
            public void onPausedSample(Bulkhead b, long rttNanos, long pausedNanos) {
                // A success this process paused during (a loaded machine stalls the test JVM too) is told apart
                // from the others, but it is a success all the same.
                AdaptiveHttpSampleTest.this.samples.add(Outcome.SUCCESS);
                AdaptiveHttpSampleTest.this.rtts.add(Duration.ofNanos(rttNanos));
            }
        });
    }

    /** A RestClient over {@code kind} with the interceptor and a 300 ms read timeout. */
    private RestClient client(ClientKind kind) {
        return RestClient.builder()
            .requestFactory(kind.create(this.bulkhead, Duration.ofMillis(300), this.resources))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(this.bulkhead))
            .build();
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void answersAreSuccessesWithTheTimeToTheirHeaders(ClientKind kind) {
        RestClient client = client(kind);
        assertThat(client.get().uri(this.server.uri("/slow?ms=200")).retrieve().body(String.class)).isEqualTo("ok");
        catchThrowable(() -> client.get().uri(this.server.uri("/status/500")).retrieve().body(String.class));
        assertThat(this.samples).containsExactly(Outcome.SUCCESS, Outcome.SUCCESS);
        assertThat(this.rtts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void serviceUnavailableAndTooManyRequestsAreDrops(ClientKind kind) {
        RestClient client = client(kind);
        catchThrowable(() -> client.get().uri(this.server.uri("/status/503")).retrieve().body(String.class));
        catchThrowable(() -> client.get().uri(this.server.uri("/status/429")).retrieve().body(String.class));
        assertThat(this.samples).containsExactly(Outcome.DROPPED, Outcome.DROPPED);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aReadTimeoutIsADrop(ClientKind kind) {
        RestClient client = client(kind);
        assertThat(catchThrowable(() -> client.get().uri(this.server.uri("/hang")).retrieve().body(String.class)))
            .isNotNull();
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
        assertThat(this.rtts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aReadTimeoutWhileTheBodyStreamsIsADrop(ClientKind kind) {
        // /stream sends its headers and a first line, then nothing until released: the read timeout fires in the body.
        RestClient client = client(kind);
        Throwable failure = catchThrowable(() -> client.get().uri(this.server.uri("/stream")).retrieve()
            .body(String.class));
        this.server.release();
        assertThat(failure).isNotNull();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        if (kind == ClientKind.JDK) {
            // Spring closes the JDK client's body stream when the timeout fires: the read fails with a plain
            // IOException, which tells nothing about the callee. No sample, and above all no success.
            assertThat(this.samples).isEmpty();
            return;
        }
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
        assertThat(this.rtts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aServiceUnavailableWhoseBodyStallsStaysADropWithTheTimeToItsHeaders(ClientKind kind) {
        RestClient client = client(kind);
        Throwable failure = catchThrowable(() -> client.get().uri(this.server.uri("/stream?status=503")).retrieve()
            .body(String.class));
        this.server.release();
        assertThat(failure).isNotNull();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
        assertThat(this.rtts.get(0)).isLessThan(Duration.ofMillis(300));
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aReadTimeoutOfARequestWithABodyIsADrop(ClientKind kind) {
        // HttpURLConnection sends a body first and reads the status line only when asked for it: after execute.
        RestClient client = client(kind);
        assertThat(catchThrowable(() -> client.post().uri(this.server.uri("/hang")).body("payload").retrieve()
            .body(String.class))).isNotNull();
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
        assertThat(this.rtts.get(0)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aRefusedConnectionIsADrop(ClientKind kind) throws Exception {
        RestClient client = client(kind);
        URI refused;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            refused = URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/refused");
        }
        URI target = refused;
        assertThat(catchThrowable(() -> client.get().uri(target).retrieve().body(String.class))).isNotNull();
        assertThat(this.samples).containsExactly(Outcome.DROPPED);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void anExchangeThatNeverReachedAServerIsNoSample(ClientKind kind) {
        RestClient client = client(kind);
        assertThat(catchThrowable(() -> client.get().uri("http://no-such-host.invalid/").retrieve()
            .body(String.class))).isNotNull();
        assertThat(this.samples).isEmpty();
        assertThat(this.bulkhead.getActiveCount()).isZero();
        assertThat(this.bulkhead.getCompletedCount()).isEqualTo(1);
    }

    @Test
    void aCallThatFoundNoPooledConnectionInTimeWasNeverSentAndIsNoSample() throws Exception {
        // A pool smaller than the limit (here one connection), as a pool shared with unbounded calls can be.
        CloseableHttpClient httpClient = HttpClients.custom()
            .setConnectionManager(
                    PoolingHttpClientConnectionManagerBuilder.create().setMaxConnTotal(1).setMaxConnPerRoute(1).build())
            .build();
        this.resources.add(httpClient);
        HttpComponentsClientHttpRequestFactory factory = new HttpComponentsClientHttpRequestFactory(httpClient);
        factory.setConnectionRequestTimeout(Duration.ofMillis(200));
        RestClient client = RestClient.builder()
            .requestFactory(factory)
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(this.bulkhead))
            .build();
        CompletableFuture<String> holding = CompletableFuture.supplyAsync(
                () -> client.get().uri(this.server.uri("/slow?ms=1500")).retrieve().body(String.class),
                (task) -> Thread.ofVirtual().start(task));
        await().atMost(Duration.ofSeconds(10)).until(() -> this.server.concurrent() == 1);

        Throwable waited = catchThrowable(() -> client.get().uri(this.server.uri("/slow?ms=1")).retrieve()
            .body(String.class));

        assertThat(waited).hasRootCauseInstanceOf(ConnectionRequestTimeoutException.class);
        assertThat(holding.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
        // Only the call that reached the server tells something about it.
        assertThat(this.samples).containsExactly(Outcome.SUCCESS);
        assertThat(this.bulkhead.getCompletedCount()).isEqualTo(2);
    }
}
