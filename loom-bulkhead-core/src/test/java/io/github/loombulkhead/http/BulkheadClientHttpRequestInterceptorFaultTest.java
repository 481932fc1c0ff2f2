package io.github.loombulkhead.http;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;

import static io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptorConcurrencyTest.assertAllFree;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The permit covers the whole exchange including the body, and every callee fault gives it back
 * exactly once; checked with each request factory against real loopback servers.
 */
@ExtendWith(LoopbackServerExtension.class)
class BulkheadClientHttpRequestInterceptorFaultTest {

    @AutoClose
    private final Resources resources = new Resources();

    private LoopbackServer server;

    private Bulkhead bulkhead;

    private RestClient client;

    /** Long enough that no healthy exchange times out on a loaded machine; only {@code /hang} reaches it. */
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(5);

    void setUp(ClientKind kind, int limit) {
        setUp(kind, limit, READ_TIMEOUT);
    }

    void setUp(ClientKind kind, int limit, Duration readTimeout) {
        this.bulkhead = new Bulkhead("callee", BulkheadConfig.custom().maxConcurrentCalls(limit).build());
        this.client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(kind.create(this.bulkhead, readTimeout, this.resources))
            .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(this.bulkhead))
            .build();
    }

    @BeforeEach
    void setUp(LoopbackServer server) {
        this.server = server;
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void anExchangeMadeWhileTheSameBulkheadsExchangeHoldsItsPermitRunsUnderThatPermit(ClientKind kind) {
        // An interceptor inside the bulkhead's one fetches a token from the same callee before the call is sent: the
        // two exchanges run one after the other on one thread. Waiting for a second permit would wait for itself.
        this.bulkhead = new Bulkhead("callee", BulkheadConfig.custom()
            .maxConcurrentCalls(1)
            .maxWaitDuration(Duration.ofMillis(500))
            .build());
        BulkheadClientHttpRequestInterceptor bounded = BulkheadClientHttpRequestInterceptor.perClient(this.bulkhead);
        ClientHttpRequestFactory factory = kind.create(this.bulkhead, READ_TIMEOUT, this.resources);
        RestClient tokens = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(factory)
            .requestInterceptor(bounded)
            .build();
        RestClient client = RestClient.builder()
            .baseUrl(this.server.baseUrl())
            .requestFactory(factory)
            .requestInterceptor(bounded)
            .requestInterceptor((request, body, execution) -> {
                request.getHeaders().setBearerAuth(tokens.get().uri("/slow?ms=0").retrieve().body(String.class));
                return execution.execute(request, body);
            })
            .build();

        assertThat(client.get().uri("/slow?ms=0").retrieve().body(String.class)).isEqualTo("ok");

        assertThat(this.server.requests()).isEqualTo(2);
        assertThat(this.server.maxConcurrent()).isEqualTo(1);
        assertAllFree(this.bulkhead, 1);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void everyFaultLeavesAllPermitsFree(ClientKind kind, ResettingServer resetting) throws Exception {
        // Short, for the read timeout of /hang; every other exchange here is a single quick one.
        setUp(kind, 3, Duration.ofSeconds(1));

        URI refused = closedPort();
        assertThatExceptionOfType(ResourceAccessException.class)
            .isThrownBy(() -> this.client.get().uri(refused).retrieve().body(String.class));
        assertAllFree(this.bulkhead, 1);

        assertThatExceptionOfType(ResourceAccessException.class)
            .isThrownBy(() -> this.client.get().uri("/hang").retrieve().body(String.class));
        assertAllFree(this.bulkhead, 2);

        assertThatExceptionOfType(HttpServerErrorException.class)
            .isThrownBy(() -> this.client.get().uri("/status/500").retrieve().body(String.class))
            .satisfies((ex) -> assertThat(ex.getStatusCode().value()).isEqualTo(500));
        assertAllFree(this.bulkhead, 3);

        assertThatExceptionOfType(RestClientException.class)
            .isThrownBy(() -> this.client.get().uri(resetting.uri("/body")).retrieve().body(String.class));
        assertAllFree(this.bulkhead, 4);

        assertThat(this.client.get().uri("/slow?ms=0").retrieve().body(String.class)).isEqualTo("ok");
        assertAllFree(this.bulkhead, 5);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void faultsUnderLoadLeaveAllPermitsFree(ClientKind kind, ResettingServer resetting) throws Exception {
        setUp(kind, 4);
        URI refused = closedPort();
        List<String> outcomes = Calls.concurrently(40, (i) -> {
            try {
                return switch (i % 4) {
                    case 0 -> this.client.get().uri(refused).retrieve().body(String.class);
                    case 1 -> this.client.get().uri("/status/500").retrieve().body(String.class);
                    case 2 -> this.client.get().uri(resetting.uri("/body")).retrieve().body(String.class);
                    default -> this.client.get().uri("/slow?ms=5").retrieve().body(String.class);
                };
            }
            catch (RestClientException ex) {
                return "failed";
            }
        });
        assertThat(outcomes).filteredOn("ok"::equals).hasSize(10);
        assertThat(outcomes).filteredOn("failed"::equals).hasSize(30);
        assertAllFree(this.bulkhead, 40);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aStreamingResponseKeepsItsPermitUntilItIsClosed(ClientKind kind) throws Exception {
        setUp(kind, 1);
        ClientHttpResponse response = this.client.get()
            .uri("/stream")
            .exchange((request, exchanged) -> exchanged, false);
        BufferedReader body = new BufferedReader(new InputStreamReader(response.getBody(), StandardCharsets.UTF_8));
        assertThat(body.readLine()).isEqualTo("first");
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);

        CompletableFuture<String> next = CompletableFuture.supplyAsync(
                () -> this.client.get().uri("/slow?ms=0").retrieve().body(String.class),
                (task) -> Thread.ofVirtual().start(task));
        await().atMost(Duration.ofSeconds(5)).until(() -> this.bulkhead.getWaitingCount() == 1);

        this.server.release();
        assertThat(body.readLine()).isEqualTo("last");
        assertThat(body.readLine()).isNull();
        assertThat(this.bulkhead.getActiveCount()).as("body read to the end but not closed").isEqualTo(1);
        assertThat(next).isNotDone();
        assertThat(this.server.requests()).isEqualTo(1);

        response.close();
        assertThat(next.get(5, TimeUnit.SECONDS)).isEqualTo("ok");
        response.close();
        assertAllFree(this.bulkhead, 2);
    }

    @ParameterizedTest
    @EnumSource(ClientKind.class)
    void aStreamedBodyReleasesWhenTheStreamIsClosed(ClientKind kind) throws Exception {
        setUp(kind, 2);
        InputStream stream = this.client.get().uri("/stream").retrieve().body(InputStream.class);
        assertThat(stream).isNotNull();
        assertThat(new String(stream.readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("first\n");
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);

        this.server.release();
        assertThat(new String(stream.readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("last\n");
        assertThat(this.bulkhead.getActiveCount()).isEqualTo(1);

        stream.close();
        stream.close();
        assertAllFree(this.bulkhead, 1);
    }

    private static URI closedPort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/refused");
        }
    }
}
