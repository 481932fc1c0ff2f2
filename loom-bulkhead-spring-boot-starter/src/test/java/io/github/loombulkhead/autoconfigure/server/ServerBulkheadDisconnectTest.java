package io.github.loombulkhead.autoconfigure.server;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadListener;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.autoconfigure.server.WithdrawnRequests.Reason;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Clients that go away while their request waits for a permit, on a real Tomcat at a random port, with raw sockets:
 * the request leaves the queue within the check interval, the counts are exact, and the next waiter gets the
 * permit; a client that stays is never taken for gone.
 */
class ServerBulkheadDisconnectTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    /** The check runs every 100 ms; a gone client's request must be out of the queue well within this. */
    private static final Duration WITHDRAWN_WITHIN = Duration.ofSeconds(3);

    @Test
    void clientThatDisconnectsWhileWaitingLeavesTheQueueAndTheNextWaiterGetsThePermit() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.queue-capacity=1",
                "loom.bulkhead.instances.server.max-wait-duration=60s",
                "loom.bulkhead.server.disconnect-check-interval=100ms")) {
            Bulkhead server = app.bulkhead("server");
            PermitsAfterWaiting afterWaiting = PermitsAfterWaiting.of(server);
            CompletableFuture<HttpResponse<String>> held = send(app, "/hold");
            await().atMost(WAIT).until(() -> ServerApplication.gate.handling.get() == 1);
            RawHttpClient gone = new RawHttpClient(app.port()).get("/hold");
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
            // The queue is full: one more request is refused.
            assertThat(send(app, "/fast").get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
            gone.close();
            await().atMost(WITHDRAWN_WITHIN).until(() -> server.getWaitingCount() == 0);
            // It left before any permit came: the first request still holds the only one.
            assertThat(server.getActiveCount()).isEqualTo(1);
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isEqualTo(1);
            // Its slot is free at once: the next request waits instead of being refused, and gets the permit.
            CompletableFuture<HttpResponse<String>> next = send(app, "/hold");
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
            ServerApplication.gate.open();
            assertThat(held.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
            assertThat(next.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(ServerApplication.gate.handling.get()).isEqualTo(2);
            assertThat(server.getPermittedCount()).isEqualTo(2);
            assertThat(afterWaiting.count()).isEqualTo(1);
            assertThat(server.getCompletedCount()).isEqualTo(2);
            assertThat(server.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(1);
            assertThat(server.getRejectedCount()).isEqualTo(1);
            assertThat(server.getWaitingCount()).isZero();
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isEqualTo(1);
            assertThat(withdrawn(app, Reason.REQUEST_ENDED)).isZero();
            MeterRegistry meters = app.context().getBean(MeterRegistry.class);
            assertThat(meters.get(ServerBulkheadMetrics.WITHDRAWN)
                .tags("name", "server", "reason", "client-disconnected")
                .functionCounter()
                .count()).isEqualTo(1);
            assertThat(meters.get(ServerBulkheadMetrics.WITHDRAWN)
                .tags("name", "server", "reason", "request-ended")
                .functionCounter()
                .count()).isZero();
        }
    }

    @Test
    void clientThatClosesItsSendingHalfIsTakenForGoneAndAnswered499() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.server.disconnect-check-interval=100ms")) {
            Bulkhead server = app.bulkhead("server");
            CompletableFuture<HttpResponse<String>> held = send(app, "/hold");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 1);
            try (RawHttpClient halfClosed = new RawHttpClient(app.port())) {
                halfClosed.get("/hold");
                await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
                halfClosed.shutdownOutput();
                assertThat(halfClosed.readResponse()).isEqualTo("499 ");
            }
            assertThat(server.getWaitingCount()).isZero();
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isEqualTo(1);
            ServerApplication.gate.open();
            assertThat(held.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
            assertThat(ServerApplication.gate.handling.get()).isEqualTo(1);
            assertThat(server.getPermittedCount()).isEqualTo(1);
        }
    }

    @Test
    void manyClientsThatDisconnectLeaveTheQueueAndTheOthersAreServed() throws Exception {
        int gone = 20;
        int staying = 5;
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.queue-capacity=" + (gone + staying),
                "loom.bulkhead.server.disconnect-check-interval=100ms")) {
            Bulkhead server = app.bulkhead("server");
            CompletableFuture<HttpResponse<String>> held = send(app, "/hold");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 1);
            RawHttpClient[] clients = new RawHttpClient[gone + staying];
            for (int i = 0; i < clients.length; i++) {
                clients[i] = new RawHttpClient(app.port()).get("/hold");
                int queued = i + 1;
                await().atMost(WAIT).until(() -> server.getWaitingCount() == queued);
            }
            // The first ones go away, the last ones stay.
            for (int i = 0; i < gone; i++) {
                clients[i].close();
            }
            await().atMost(WITHDRAWN_WITHIN).until(() -> server.getWaitingCount() == staying);
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isEqualTo(gone);
            ServerApplication.gate.open();
            assertThat(held.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
            for (int i = gone; i < clients.length; i++) {
                assertThat(clients[i].readResponse()).isEqualTo("200 held");
                clients[i].close();
            }
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(ServerApplication.gate.handling.get()).isEqualTo(1 + staying);
            assertThat(server.getPermittedCount()).isEqualTo(1 + staying);
            assertThat(server.getRejectedCount()).isZero();
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isEqualTo(gone);
        }
    }

    @Test
    void clientThatStaysIsNeverTakenForGoneAndItsConnectionServesMore() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.server.disconnect-check-interval=50ms")) {
            Bulkhead server = app.bulkhead("server");
            CompletableFuture<HttpResponse<String>> held = send(app, "/hold");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 1);
            try (RawHttpClient staying = new RawHttpClient(app.port())) {
                staying.get("/hold");
                await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
                // A pipelined request arrives while the first waits; the checks must keep it for later.
                staying.get("/fast");
                await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> server.getWaitingCount() == 1);
                ServerApplication.gate.open();
                assertThat(held.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
                assertThat(staying.readResponse()).isEqualTo("200 held");
                assertThat(staying.readResponse()).isEqualTo("200 fast");
                // The kept-alive connection serves one more request.
                assertThat(staying.get("/fast").readResponse()).isEqualTo("200 fast");
            }
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(4);
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isZero();
        }
    }

    @Test
    void requestThatWaitedReadsItsEmptyBodyThroughTheReader() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1")) {
            Bulkhead server = app.bulkhead("server");
            CompletableFuture<HttpResponse<String>> held = send(app, "/hold");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 1);
            CompletableFuture<HttpResponse<String>> reader = send(app, "/reader");
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
            ServerApplication.gate.open();
            assertThat(held.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
            HttpResponse<String> response = reader.get(60, TimeUnit.SECONDS);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo("read -1");
        }
    }

    /** What holds without the check: a gone client's request keeps its slot until max-wait refuses it. */
    @Test
    void withoutTheCheckAGoneClientsRequestWaitsUntilMaxWait() throws Exception {
        assertGoneClientWaitsUntilMaxWait("loom.bulkhead.server.disconnect-check-interval=0", (client) -> client
            .get("/hold"));
    }

    /** A request with a body is not checked (the application reads its body, blocking): max-wait bounds it. */
    @Test
    void goneClientsRequestWithABodyWaitsUntilMaxWait() throws Exception {
        assertGoneClientWaitsUntilMaxWait("loom.bulkhead.server.disconnect-check-interval=50ms", (client) -> client
            .post("/hold", "payload"));
    }

    private void assertGoneClientWaitsUntilMaxWait(String check, RawRequest request) throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.max-wait-duration=1500ms", check)) {
            Bulkhead server = app.bulkhead("server");
            CompletableFuture<HttpResponse<String>> held = send(app, "/hold");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 1);
            RawHttpClient gone = new RawHttpClient(app.port());
            request.send(gone);
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
            gone.close();
            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> server.getWaitingCount() == 1);
            await().atMost(WAIT).until(() -> server.getRejectedCount(RejectionReason.WAIT_TIMED_OUT) == 1);
            assertThat(server.getWaitingCount()).isZero();
            assertThat(withdrawn(app, Reason.CLIENT_DISCONNECTED)).isZero();
            ServerApplication.gate.open();
            assertThat(held.get(60, TimeUnit.SECONDS).body()).isEqualTo("held");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(1);
        }
    }

    private static long withdrawn(ServerApplication app, Reason reason) {
        return app.filter().getWithdrawnRequests().getCount("server", reason);
    }

    private static CompletableFuture<HttpResponse<String>> send(ServerApplication app, String path) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(app.url(path))).timeout(Duration.ofSeconds(60)).build();
        return app.client().sendAsync(request, HttpResponse.BodyHandlers.ofString());
    }

    @FunctionalInterface
    private interface RawRequest {

        void send(RawHttpClient client) throws Exception;
    }

    /** Counts the permits granted after a wait in the queue. */
    private static final class PermitsAfterWaiting implements BulkheadListener {

        private final AtomicLong count = new AtomicLong();

        static PermitsAfterWaiting of(Bulkhead bulkhead) {
            PermitsAfterWaiting listener = new PermitsAfterWaiting();
            bulkhead.addListener(listener);
            return listener;
        }

        @Override
        public void onPermitted(Bulkhead bulkhead, long waitNanos) {
            if (waitNanos > 0) {
                this.count.incrementAndGet();
            }
        }

        long count() {
            return this.count.get();
        }
    }
}
