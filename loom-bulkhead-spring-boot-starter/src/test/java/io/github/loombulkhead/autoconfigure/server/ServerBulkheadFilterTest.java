package io.github.loombulkhead.autoconfigure.server;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.RejectionReason;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The inbound bulkhead on a real Tomcat at a random port, driven by the JDK's HttpClient: exact counts of granted,
 * queued and rejected requests, and permits given back for synchronous, asynchronous and streaming
 * responses.
 */
@ExtendWith(OutputCaptureExtension.class)
class ServerBulkheadFilterTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void aRequestThatWaitedPassesEveryFilterOfTheApplicationAsOneThatDidNot() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "test.filters=true")) {
            Bulkhead server = app.bulkhead("server");
            HttpResponse<String> immediate = join(send(app, "/fast", 1)).get(0);
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            CompletableFuture<HttpResponse<String>> waitedGet = queueBehind(app, server, "/fast");
            CompletableFuture<HttpResponse<String>> waitedForm = app.client()
                .sendAsync(HttpRequest.newBuilder(URI.create(app.url("/form")))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .PUT(HttpRequest.BodyPublishers.ofString("name=joe"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 2);
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            for (HttpResponse<String> response : List.of(immediate, waitedGet.get(30, TimeUnit.SECONDS))) {
                assertThat(response.statusCode()).isEqualTo(200);
                assertThat(response.headers().firstValue("X-Plain-Filter")).hasValue("ran");
                assertThat(response.headers().firstValue("X-Once-Filter")).hasValue("ran");
            }
            HttpResponse<String> form = waitedForm.get(30, TimeUnit.SECONDS);
            assertThat(form.statusCode()).isEqualTo(200);
            assertThat(form.body()).isEqualTo("name=joe");
            assertThat(server.getPermittedCount()).isEqualTo(4);
        }
    }

    @Test
    void aFilterAfterTheBulkheadsMissesRequestsThatWaitedAndIsReportedAtStartup(CapturedOutput output) throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "test.filters=true", "test.unordered-filter=true")) {
            assertThat(output).containsOnlyOnce("Filters [sameOrderFilter (order LOWEST_PRECEDENCE - 10), "
                    + "unorderedFilter (order LOWEST_PRECEDENCE, none of its own)] come after the server bulkhead's "
                    + "filter (order LOWEST_PRECEDENCE - 10) and do not run for a request that waited for a permit");
            Bulkhead server = app.bulkhead("server");
            HttpResponse<String> immediate = join(send(app, "/fast", 1)).get(0);
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            CompletableFuture<HttpResponse<String>> waited = queueBehind(app, server, "/fast");
            ServerApplication.gate.open();
            join(held);
            // What the warning is about: the same request, once it had to wait, passes without that filter.
            assertThat(immediate.headers().firstValue("X-Unordered-Filter")).hasValue("ran");
            assertThat(waited.get(30, TimeUnit.SECONDS).headers().firstValue("X-Unordered-Filter")).isEmpty();
        }
    }

    @Test
    void filtersOrderedBeforeTheBulkheadsAreNotReported(CapturedOutput output) throws Exception {
        try (ServerApplication app = ServerApplication.start("test.filters=true", "test.sync-filter=true")) {
            assertThat(app.bulkhead("server").getLimit()).isPositive();
            assertThat(output).doesNotContain("come after the server bulkhead's filter");
        }
    }

    @Test
    void aRejectedPathThatIsNoUriIsStillAnswered503() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.queue-capacity=0", "server.tomcat.relaxed-path-chars=|")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            try (RawHttpClient client = new RawHttpClient(app.port())) {
                assertThat(client.get("/hold|x").readResponse()).startsWith("503 ")
                    .contains("\"instance\":\"/hold%7Cx\"", "\"reason\":\"queue-full\"");
            }
            // A path that is a URI already keeps its escapes as sent.
            try (RawHttpClient client = new RawHttpClient(app.port())) {
                assertThat(client.get("/hold%20x").readResponse()).startsWith("503 ")
                    .contains("\"instance\":\"/hold%20x\"");
            }
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            assertThat(server.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(2);
        }
    }

    @Test
    void aRejectionHandlerThatFailsStillLeavesA503() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.queue-capacity=0", "test.failing-rejection-handler=true")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            assertThat(join(send(app, "/hold", 1))).extracting(HttpResponse::statusCode).containsOnly(503);
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
        }
    }

    @Test
    void behindAFilterWithoutAsyncSupportRequestsWaitOnTheirThreadAndAreRejectedWithA503() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.queue-capacity=1", "test.sync-filter=true")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            CompletableFuture<HttpResponse<String>> waited = queueBehind(app, server, "/fast");
            // The queue is full: rejected as usual, not a 500 from a request that could not go async.
            HttpResponse<String> rejected = join(send(app, "/fast", 1)).get(0);
            assertThat(rejected.statusCode()).isEqualTo(503);
            assertThat(rejected.body()).contains("\"reason\":\"queue-full\"");
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            HttpResponse<String> afterWaiting = waited.get(30, TimeUnit.SECONDS);
            assertThat(afterWaiting.statusCode()).isEqualTo(200);
            assertThat(afterWaiting.headers().firstValue("X-Sync-Filter")).hasValue("ran");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(2);
            assertThat(server.getCompletedCount()).isEqualTo(2);
            assertThat(server.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(1);
        }
    }

    @Test
    void grantsQueuesAndRejectsExactly() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=2",
                "loom.bulkhead.instances.server.queue-capacity=3")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = send(app, "/hold", 2);
            await().atMost(WAIT).until(() -> ServerApplication.gate.handling.get() == 2);
            List<CompletableFuture<HttpResponse<String>>> queued = send(app, "/hold", 3);
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 3);
            List<HttpResponse<String>> rejected = join(send(app, "/hold", 2));
            assertThat(rejected).allSatisfy((response) -> {
                assertThat(response.statusCode()).isEqualTo(503);
                assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
                assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
                assertThat(response.body()).contains("\"status\":503", "\"bulkhead\":\"server\"",
                        "\"reason\":\"queue-full\"", "\"instance\":\"/hold\"", "\"title\":\"Service Unavailable\"");
            });
            assertThat(ServerApplication.gate.handling.get()).isEqualTo(2);
            assertThat(server.getActiveCount()).isEqualTo(2);
            ServerApplication.gate.open();
            List<HttpResponse<String>> served = join(held);
            served.addAll(join(queued));
            assertThat(served).extracting(HttpResponse::statusCode).containsOnly(200);
            assertThat(served).extracting(HttpResponse::body).containsOnly("held");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(5);
            assertThat(server.getCompletedCount()).isEqualTo(5);
            assertThat(server.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(2);
            assertThat(server.getRejectedCount()).isEqualTo(2);
            assertThat(server.getWaitingCount()).isZero();
        }
    }

    @Test
    void requestThatWaitedTooLongGetsWaitTimedOut() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.max-wait-duration=200ms", "loom.bulkhead.server.retry-after=1500ms")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            HttpResponse<String> timedOut = join(send(app, "/hold", 1)).get(0);
            assertThat(timedOut.statusCode()).isEqualTo(503);
            assertThat(timedOut.headers().firstValue("Retry-After")).hasValue("2");
            assertThat(timedOut.body()).contains("\"reason\":\"wait-timed-out\"");
            assertThat(server.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(1);
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(1);
        }
    }

    @Test
    void asyncAndStreamingResponsesHoldThePermitUntilTheyComplete() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=3")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
            responses.addAll(send(app, "/callable", 1));
            responses.addAll(send(app, "/deferred", 1));
            responses.addAll(send(app, "/stream", 1));
            await().atMost(WAIT).until(() -> ServerApplication.gate.handling.get() == 3);
            // Every handler returned its thread to the container; the responses are not complete.
            await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> server.getActiveCount() == 3);
            assertThat(server.getCompletedCount()).isZero();
            ServerApplication.gate.open();
            assertThat(join(responses)).extracting(HttpResponse::body).containsExactly("callable", "deferred",
                    "first last");
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(3);
            assertThat(server.getCompletedCount()).isEqualTo(3);
        }
    }

    @Test
    void queuedAsyncAndStreamingRequestsReleaseWhenTheyComplete() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            List<CompletableFuture<HttpResponse<String>>> queued = new ArrayList<>();
            queued.addAll(send(app, "/callable", 1));
            queued.addAll(send(app, "/deferred", 1));
            queued.addAll(send(app, "/stream", 1));
            queued.addAll(send(app, "/fail", 1));
            await().atMost(WAIT).until(() -> server.getWaitingCount() == 4);
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            assertThat(join(queued)).extracting(HttpResponse::statusCode).containsExactly(200, 200, 200, 500);
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0 && server.getCompletedCount() == 5);
            assertThat(server.getPermittedCount()).isEqualTo(5);
            assertThat(server.getWaitingCount()).isZero();
        }
    }

    @Test
    void failingHandlerReleasesItsPermit() throws Exception {
        try (ServerApplication app = ServerApplication.start()) {
            Bulkhead server = app.bulkhead("server");
            assertThat(join(send(app, "/fail", 3))).extracting(HttpResponse::statusCode).containsOnly(500);
            await().atMost(WAIT).until(() -> server.getCompletedCount() == 3);
            assertThat(server.getActiveCount()).isZero();
        }
    }

    @Test
    void routesPickTheirBulkheadByPathPattern() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.server.routes[0].pattern=/reports/**",
                "loom.bulkhead.server.routes[0].bulkhead=reports",
                "loom.bulkhead.instances.reports.max-concurrent-calls=1",
                "loom.bulkhead.instances.reports.queue-capacity=0")) {
            Bulkhead reports = app.bulkhead("reports");
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = send(app, "/reports/daily", 1);
            await().atMost(WAIT).until(() -> reports.getActiveCount() == 1);
            HttpResponse<String> rejected = join(send(app, "/reports/daily", 1)).get(0);
            assertThat(rejected.statusCode()).isEqualTo(503);
            assertThat(rejected.body()).contains("\"bulkhead\":\"reports\"");
            assertThat(join(send(app, "/fast", 2))).extracting(HttpResponse::body).containsOnly("fast");
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            assertThat(reports.getPermittedCount()).isEqualTo(1);
            assertThat(reports.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(1);
            await().atMost(WAIT).until(() -> server.getCompletedCount() == 2);
            assertThat(server.getPermittedCount()).isEqualTo(2);
        }
    }

    @Test
    void serverBulkheadHasTheMetersAndTheEndpointOfEveryBulkhead() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=1",
                "loom.bulkhead.instances.server.queue-capacity=0",
                "management.endpoints.web.exposure.include=bulkheads")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> held = holdTheOnlyPermit(app, server);
            assertThat(join(send(app, "/hold", 1))).extracting(HttpResponse::statusCode).containsOnly(503);
            MeterRegistry meters = app.context().getBean(MeterRegistry.class);
            assertThat(meters.get("loom.bulkhead.active").tag("name", "server").gauge().value()).isEqualTo(1);
            assertThat(meters.get("loom.bulkhead.calls").tags("name", "server", "outcome", "rejected", "reason",
                    "queue-full").functionCounter().count()).isEqualTo(1);
            ServerApplication.gate.open();
            assertThat(join(held)).extracting(HttpResponse::statusCode).containsOnly(200);
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(meters.get("loom.bulkhead.calls").tags("name", "server", "outcome", "permitted", "reason",
                    "none").functionCounter().count()).isEqualTo(1);
            // The endpoint is bounded too: the request to it takes the permit the held request gave back.
            HttpResponse<String> endpoint = join(send(app, "/actuator/bulkheads", 1)).get(0);
            assertThat(endpoint.statusCode()).isEqualTo(200);
            assertThat(endpoint.body()).contains("\"server\"");
        }
    }

    @Test
    void thousandWaitingRequestsHoldNoMoreThreadsThanTheLimit() throws Exception {
        int limit = 10;
        int waiting = 1000;
        try (ServerApplication app = ServerApplication.start(
                "loom.bulkhead.instances.server.max-concurrent-calls=" + limit,
                "loom.bulkhead.instances.server.queue-capacity=2000")) {
            Bulkhead server = app.bulkhead("server");
            List<CompletableFuture<HttpResponse<String>>> responses = send(app, "/hold", limit + waiting);
            await().atMost(Duration.ofSeconds(60)).until(() -> server.getWaitingCount() == waiting);
            // The executor Tomcat runs requests on is the counting one, and it ran a task per request.
            assertThat(ServerApplication.gate.tasks.sum()).isGreaterThanOrEqualTo(limit + waiting);
            await().atMost(WAIT).until(() -> ServerApplication.gate.liveThreads.get() == limit);
            await().during(Duration.ofMillis(500))
                .atMost(WAIT)
                .until(() -> ServerApplication.gate.liveThreads.get() <= limit);
            assertThat(server.getActiveCount()).isEqualTo(limit);
            assertThat(ServerApplication.gate.handling.get()).isEqualTo(limit);
            ServerApplication.gate.open();
            assertThat(join(responses)).hasSize(limit + waiting)
                .extracting(HttpResponse::statusCode)
                .containsOnly(200);
            await().atMost(WAIT).until(() -> server.getActiveCount() == 0);
            assertThat(server.getPermittedCount()).isEqualTo(limit + waiting);
        }
    }

    /** Sends one request to {@code /hold} and waits until it holds the bulkhead's only permit. */
    private static List<CompletableFuture<HttpResponse<String>>> holdTheOnlyPermit(ServerApplication app,
            Bulkhead server) {
        List<CompletableFuture<HttpResponse<String>>> held = send(app, "/hold", 1);
        await().atMost(WAIT).until(() -> server.getActiveCount() == 1 && ServerApplication.gate.handling.get() == 1);
        return held;
    }

    /** Sends one request to {@code path} and waits until it waits for a permit. */
    private static CompletableFuture<HttpResponse<String>> queueBehind(ServerApplication app, Bulkhead server,
            String path) {
        CompletableFuture<HttpResponse<String>> waiting = send(app, path, 1).get(0);
        await().atMost(WAIT).until(() -> server.getWaitingCount() == 1);
        return waiting;
    }

    private static List<CompletableFuture<HttpResponse<String>>> send(ServerApplication app, String path, int count) {
        List<CompletableFuture<HttpResponse<String>>> responses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            HttpRequest request = HttpRequest.newBuilder(URI.create(app.url(path))).timeout(Duration.ofSeconds(60)).build();
            responses.add(app.client().sendAsync(request, HttpResponse.BodyHandlers.ofString()));
        }
        return responses;
    }

    private static List<HttpResponse<String>> join(List<CompletableFuture<HttpResponse<String>>> responses)
            throws Exception {
        List<HttpResponse<String>> joined = new ArrayList<>();
        for (CompletableFuture<HttpResponse<String>> response : responses) {
            joined.add(response.get(60, TimeUnit.SECONDS));
        }
        return joined;
    }
}
