package io.github.loombulkhead.autoconfigure.server;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring MVC runs {@code Callable} controller methods on the {@code applicationTaskExecutor}, which
 * {@code loom.bulkhead.task-execution.enabled=true} bounds, and never reads the future it submits them with: a
 * rejection through that future after the max wait would leave the request without an answer until MVC's own
 * timeout, and the method would never run.
 */
class MvcCallableOnBoundedExecutorTest {

    @Test
    void aCallableThatWaitsLongerThanTheMaxWaitRunsOnceAPermitIsFree() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.task-execution.enabled=true",
                "loom.bulkhead.instances.application-task-executor.max-concurrent-calls=1",
                "loom.bulkhead.instances.application-task-executor.max-wait-duration=200ms",
                "spring.mvc.async.request-timeout=30s")) {
            Bulkhead tasks = app.bulkhead("application-task-executor");
            CompletableFuture<HttpResponse<String>> first = get(app, "/callable");
            await().atMost(Duration.ofSeconds(20)).until(() -> tasks.getActiveCount() == 1);
            CompletableFuture<HttpResponse<String>> second = get(app, "/callable");
            await().atMost(Duration.ofSeconds(20)).until(() -> tasks.getWaitingCount() == 1);
            // Well past the max wait: a task nobody can be told of a rejection is not timed out.
            await().pollDelay(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5))
                .until(() -> tasks.getWaitingCount() == 1);
            ServerApplication.gate.open();
            assertThat(first.get(30, TimeUnit.SECONDS).body()).isEqualTo("callable");
            HttpResponse<String> waited = second.get(30, TimeUnit.SECONDS);
            assertThat(waited.statusCode()).isEqualTo(200);
            assertThat(waited.body()).isEqualTo("callable");
            assertThat(tasks.getRejectedCount()).isZero();
            assertThat(tasks.getPermittedCount()).isEqualTo(2);
        }
    }

    @Test
    void aCallableThatMvcTimesOutWhileItWaitsLeavesTheQueueAndNeverRuns() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.task-execution.enabled=true",
                "loom.bulkhead.instances.application-task-executor.max-concurrent-calls=1",
                "spring.mvc.async.request-timeout=500ms")) {
            Bulkhead tasks = app.bulkhead("application-task-executor");
            // The only permit stays taken until the end.
            tasks.acquirePermit();
            CompletableFuture<HttpResponse<String>> waiting = get(app, "/callable");
            await().atMost(Duration.ofSeconds(20)).until(() -> tasks.getWaitingCount() == 1);
            // MVC's timeout answers it and cancels its task, which gives up its queue slot at once: left in the
            // queue, cancelled tasks would fill it and turn live requests away.
            assertThat(waiting.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(503);
            await().atMost(Duration.ofSeconds(5)).until(() -> tasks.getWaitingCount() == 0);
            tasks.onComplete(0);
            assertThat(tasks.getPermittedCount()).isEqualTo(1);
            assertThat(tasks.getActiveCount()).isZero();
        }
    }

    private static CompletableFuture<HttpResponse<String>> get(ServerApplication app, String path) {
        return app.client()
            .sendAsync(HttpRequest.newBuilder(URI.create(app.url(path))).build(), HttpResponse.BodyHandlers.ofString());
    }
}
