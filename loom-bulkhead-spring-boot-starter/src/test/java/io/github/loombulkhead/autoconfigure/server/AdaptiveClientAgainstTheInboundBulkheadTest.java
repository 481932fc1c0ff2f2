package io.github.loombulkhead.autoconfigure.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import org.junit.jupiter.api.Test;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client whose bulkhead finds its limit with {@code gradient}, in front of an application whose inbound bulkhead
 * handles 40 requests at once and queues none (every request beyond gets {@code 503} at once): the client's limit
 * settles at the server's, and the server refuses few requests. Real Tomcat on virtual threads, a RestClient over
 * Apache HttpClient 5 on loopback.
 */
class AdaptiveClientAgainstTheInboundBulkheadTest {

    private static final int SERVER_LIMIT = 40;

    private static final int CALLS = 3000;

    private static final int CALLERS = 100;

    @Test
    void theClientsLimitSettlesAtTheServersAndFewRequestsAreRefused() throws Exception {
        try (ServerApplication app = ServerApplication.start(
                "loom.bulkhead.instances.server.max-concurrent-calls=" + SERVER_LIMIT,
                "loom.bulkhead.instances.server.queue-capacity=0")) {
            Bulkhead server = app.bulkhead("server");
            Bulkhead client = new Bulkhead("callee", BulkheadConfig.custom()
                .maxConcurrentCalls(200)
                .maxWaitDuration(Duration.ofSeconds(30))
                .adaptive(AdaptiveLimitConfig.custom().initialLimit(20).build())
                .build());
            HttpComponentsClientHttpRequestFactory factory = PooledHttpRequestFactories.forBulkhead(client)
                .connectTimeout(Duration.ofSeconds(2))
                .readTimeout(Duration.ofSeconds(5))
                .build();
            try {
                RestClient rest = RestClient.builder()
                    .requestFactory(factory)
                    .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(client))
                    .build();
                AtomicInteger done = new AtomicInteger();
                AtomicInteger refused = new AtomicInteger();
                List<Thread> callers = new ArrayList<>();
                for (int i = 0; i < CALLERS; i++) {
                    callers.add(Thread.ofVirtual().start(() -> {
                        while (done.getAndIncrement() < CALLS) {
                            try {
                                rest.get().uri(app.url("/work?ms=80")).retrieve().toBodilessEntity();
                            }
                            catch (HttpServerErrorException.ServiceUnavailable ex) {
                                refused.incrementAndGet();
                            }
                        }
                    }));
                }
                for (Thread caller : callers) {
                    caller.join();
                }
                assertThat(refused.get()).isEqualTo(server.getRejectedCount()).isLessThan(CALLS / 20);
                assertThat(server.getCompletedCount()).isEqualTo(CALLS - refused.get());
                Map<String, Number> estimates = client.getLimitAlgorithm().getEstimates();
                // In flight at the client includes answers still on their way back.
                assertThat(estimates.get("knee").intValue()).isBetween(SERVER_LIMIT - 3, SERVER_LIMIT + 3);
                assertThat(client.getLimit()).isBetween(SERVER_LIMIT - 5, SERVER_LIMIT + 3);
            }
            finally {
                factory.destroy();
            }
        }
    }
}
