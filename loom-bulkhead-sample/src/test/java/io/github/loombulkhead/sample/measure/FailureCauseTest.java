package io.github.loombulkhead.sample.measure;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import com.sun.net.httpserver.HttpServer;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.resilience4j.bulkhead.BulkheadFullException;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.util.Timeout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Failures as the caller's RestClient over HttpClient 5 really raises them are split by cause. */
class FailureCauseTest {

    private HttpServer server;

    private CloseableHttpClient httpClient;

    private RestClient client;

    @BeforeEach
    void start() throws IOException {
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        this.server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        this.server.createContext("/slow", (exchange) -> {
            try {
                Thread.sleep(2_000);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
        });
        this.server.createContext("/broken", (exchange) -> {
            exchange.sendResponseHeaders(500, -1);
            exchange.close();
        });
        this.server.start();
        Timeout timeout = Timeout.ofMilliseconds(200);
        this.httpClient = HttpClients.custom()
            .setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
                .setDefaultConnectionConfig(
                        ConnectionConfig.custom().setConnectTimeout(timeout).setSocketTimeout(timeout).build())
                .build())
            .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(timeout).build())
            .build();
        this.client = RestClient.builder().requestFactory(new HttpComponentsClientHttpRequestFactory(this.httpClient)).build();
    }

    @AfterEach
    void stop() throws IOException {
        this.httpClient.close();
        this.server.stop(0);
    }

    @Test
    void slowAnswerIsAReadTimeout() {
        assertThat(FailureCause.of(failureOf("http://127.0.0.1:" + port() + "/slow"))).isEqualTo(FailureCause.READ_TIMEOUT);
    }

    @Test
    void refusedConnectionIsAConnectFailure() throws IOException {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        assertThat(FailureCause.of(failureOf("http://127.0.0.1:" + closedPort + "/"))).isEqualTo(FailureCause.CONNECT);
    }

    @Test
    void errorStatusIsOther() {
        assertThat(FailureCause.of(failureOf("http://127.0.0.1:" + port() + "/broken"))).isEqualTo(FailureCause.OTHER);
    }

    @Test
    void refusalsByBulkheadsAndExecutorsAreRejections() {
        Bulkhead full = new Bulkhead("full", BulkheadConfig.custom().maxConcurrentCalls(1).queueCapacity(0).build());
        assertThat(full.tryAcquirePermit()).isTrue();
        Throwable loom = catchThrowable(full::acquirePermit);
        assertThat(loom).isInstanceOf(BulkheadRejectedException.class);
        assertThat(FailureCause.of(new CompletionException(loom))).isEqualTo(FailureCause.REJECTED);
        io.github.resilience4j.bulkhead.Bulkhead r4j = io.github.resilience4j.bulkhead.Bulkhead.of("r4j",
                io.github.resilience4j.bulkhead.BulkheadConfig.custom()
                    .maxConcurrentCalls(1)
                    .maxWaitDuration(Duration.ZERO)
                    .build());
        assertThat(r4j.tryAcquirePermission()).isTrue();
        Throwable resilience = catchThrowable(r4j::acquirePermission);
        assertThat(resilience).isInstanceOf(BulkheadFullException.class);
        assertThat(FailureCause.of(resilience)).isEqualTo(FailureCause.REJECTED);
        assertThat(FailureCause.of(new RejectedExecutionException("pool is shut down"))).isEqualTo(FailureCause.REJECTED);
    }

    @Test
    void anythingElseIsOther() {
        assertThat(FailureCause.of(new IllegalStateException("boom"))).isEqualTo(FailureCause.OTHER);
    }

    private Throwable failureOf(String url) {
        Throwable failure = catchThrowable(() -> this.client.get().uri(url).retrieve().toBodilessEntity());
        assertThat(failure).as("call to " + url).isNotNull();
        return failure;
    }

    private int port() {
        return this.server.getAddress().getPort();
    }
}
