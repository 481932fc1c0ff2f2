package io.github.loombulkhead.autoconfigure.server;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import io.github.loombulkhead.Bulkhead;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An adaptive inbound bulkhead on a real Tomcat learns from every request it let through: a {@code 503} or
 * {@code 429} answer and a failure of one of its drop types are drops, anything else a success. {@code aimd}
 * makes each drop visible: the first halves the limit, each later one takes a quarter off.
 */
class ServerBulkheadAdaptiveTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void answersAndFailuresOfRequestsAreTheAdaptiveBulkheadsSamples() throws Exception {
        try (ServerApplication app = ServerApplication.start("loom.bulkhead.instances.server.max-concurrent-calls=100",
                "loom.bulkhead.instances.server.adaptive.enabled=true",
                "loom.bulkhead.instances.server.adaptive.algorithm=aimd",
                "loom.bulkhead.instances.server.adaptive.initial-limit=40")) {
            Bulkhead server = app.bulkhead("server");
            for (int i = 0; i < 3; i++) {
                assertThat(get(app, server, "/fast")).isEqualTo(200);
            }
            assertThat(server.getLimit()).as("successes with one request in flight").isEqualTo(40);
            assertThat(get(app, server, "/unavailable")).isEqualTo(503);
            assertThat(server.getLimit()).as("a 503 answer while starting").isEqualTo(20);
            assertThat(get(app, server, "/fail")).isEqualTo(500);
            assertThat(server.getLimit()).as("an IOException is not a drop type").isEqualTo(20);
            assertThat(get(app, server, "/timeout")).isEqualTo(500);
            assertThat(server.getLimit()).as("a timeout thrown by the handler").isEqualTo(15);
            assertThat(get(app, server, "/callable-unavailable")).isEqualTo(503);
            assertThat(server.getLimit()).as("a 503 of an async controller").isEqualTo(11);
            assertThat(server.getCompletedCount()).isEqualTo(7);
        }
    }

    /** Sends one request and returns its status once the bulkhead counted it as completed. */
    private static int get(ServerApplication app, Bulkhead server, String path) throws Exception {
        long completed = server.getCompletedCount() + 1;
        HttpRequest request = HttpRequest.newBuilder(URI.create(app.url(path))).timeout(WAIT).build();
        int status = app.client().send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        await().atMost(WAIT).until(() -> server.getCompletedCount() == completed);
        return status;
    }
}
