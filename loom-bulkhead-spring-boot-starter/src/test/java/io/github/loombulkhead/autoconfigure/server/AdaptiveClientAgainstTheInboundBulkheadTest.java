package io.github.loombulkhead.autoconfigure.server;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.http.BulkheadClientHttpRequestInterceptor;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import io.github.loombulkhead.http.RefusalMarks;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import org.junit.jupiter.api.Test;

import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A client whose bulkhead finds its limit with {@code gradient}, in front of an application whose inbound bulkhead
 * handles 40 requests at once and queues none (every request beyond gets {@code 503} at once): at a refusal the
 * client's limit falls to just below the requests it had in flight when it sent the refused one, not by a fifth, and
 * the server refuses few requests. Real Tomcat on virtual threads, a RestClient over Apache HttpClient 5 on loopback.
 */
class AdaptiveClientAgainstTheInboundBulkheadTest {

    private static final int SERVER_LIMIT = 40;

    private static final int CALLS = 3000;

    private static final int CALLERS = 100;

    private static final int WARM_UP = 1000;

    @Test
    void theClientsLimitFallsToJustBelowTheServersAndFewRequestsAreRefused() throws Exception {
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
                AtomicInteger done = new AtomicInteger();
                RefusalMarks marks = new RefusalMarks(client, 503);
                // Every decrease after the warm-up that a refusal made: { in flight when it was sent, fell to }.
                List<int[]> atRefusals = new CopyOnWriteArrayList<>();
                client.addListener(new BulkheadListener() {
                    @Override
                    public void onLimitChanged(Bulkhead b, int oldLimit, int newLimit) {
                        int sentWith = marks.sentWith();
                        if (newLimit < oldLimit && sentWith > 0 && done.get() >= WARM_UP) {
                            atRefusals.add(new int[] { sentWith, newLimit });
                        }
                    }
                });
                RestClient rest = RestClient.builder()
                    .requestFactory(factory)
                    .requestInterceptor(BulkheadClientHttpRequestInterceptor.perClient(client))
                    .requestInterceptor(marks.interceptor())
                    .build();
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
                // The server frees a permit only after the answer left: the last requests may still hold theirs.
                await().atMost(Duration.ofSeconds(10)).until(() -> server.getActiveCount() == 0);
                assertThat(refused.get()).isEqualTo(server.getRejectedCount()).isLessThan(CALLS / 20);
                assertThat(server.getCompletedCount()).isEqualTo(CALLS - refused.get());
                assertThat(atRefusals).as("decreases at a refusal after the warm-up").hasSizeGreaterThanOrEqualTo(5);
                // A fifth off leaves 0.8 of the limit (33 of 41, sent with 41 in flight); just below the calls the
                // server held, 0.95 (39; below 0.9 only with fewer than 20 in flight, far below the server's 40). Measured against the calls in flight, not the server's 40: it frees a permit
                // only after the answer left, so on a starved machine it refuses with fewer of them in flight. Now and
                // then a refusal before any call sent since the last decrease succeeded takes a fifth off.
                assertThat(RefusalMarks.medianFallenToPerSentWith(atRefusals))
                    .as("the median limit fallen to / calls in flight at a refusal, of %s",
                            RefusalMarks.describe(atRefusals))
                    .isBetween(0.9, 1.0);
            }
            finally {
                factory.destroy();
            }
        }
    }
}
