package io.github.loombulkhead.autoconfigure.http;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.http.Callers;
import io.github.loombulkhead.http.LoopbackServer;
import io.github.loombulkhead.http.LoopbackServerExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The application of the adoption story, and nothing more: the starter, {@code spring.threads.virtual.enabled},
 * an {@code @HttpExchange} client annotated {@code @Bulkhead("x")} and
 * {@code loom.bulkhead.instances.x.max-concurrent-calls}; besides, only what any such application has (the
 * service group's base URL) and Actuator's own switches to expose the endpoints and grant writes. Its calls to a
 * real server go over Apache HttpClient 5 and are bounded, measured exactly and tuned at runtime over HTTP.
 */
@SpringBootTest(classes = HttpClientBulkheadIntegrationTest.TestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "loom.bulkhead.instances.x.max-concurrent-calls=8",
                "management.endpoints.web.exposure.include=bulkheads,metrics,prometheus",
                "management.endpoint.bulkheads.access=unrestricted" })
@AutoConfigureMetrics
@ExtendWith(LoopbackServerExtension.class)
class HttpClientBulkheadIntegrationTest {

    private static LoopbackServer callee;

    @Autowired
    private CalleeClient client;

    @Autowired
    private BulkheadRegistry registry;

    @LocalServerPort
    private int port;

    @BeforeAll
    static void startCallee(LoopbackServer server) {
        callee = server;
    }

    /** Read when the application starts, after {@link #startCallee}. */
    @DynamicPropertySource
    static void calleeUrl(DynamicPropertyRegistry registry) {
        registry.add("spring.http.serviceclient.callee.base-url", () -> callee.baseUrl());
    }

    @Test
    void boundedMeasuredAndTunableWithOnlyTheLimitConfigured() throws InterruptedException {
        // Configured from startup: the limit set, everything else from the defaults.
        String initial = actuator().get().uri("/bulkheads/x").retrieve().body(String.class);
        assertThat(JsonPath.<Integer>read(initial, "$.limit")).isEqualTo(8);
        assertThat(JsonPath.<String>read(initial, "$.config.maxWaitDuration")).isEqualTo("PT1M");
        assertThat(JsonPath.<Integer>read(initial, "$.config.queueCapacity")).isEqualTo(10_000);
        assertThat(JsonPath.<Boolean>read(initial, "$.config.fair")).isTrue();

        Bulkhead x = this.registry.find("x").orElseThrow();
        Queue<String> answers = new ConcurrentLinkedQueue<>();
        // 8 calls hold every permit; the pool (HttpClient 5 defaults to 5 per route) must not cap them below 8.
        Callers callers = Callers.start(8, () -> answers.add(this.client.slow()));
        await().until(() -> callee.concurrent() == 8);
        // 2 more wait in the bulkhead's queue without reaching the callee.
        callers.andStart(2, () -> answers.add(this.client.slow()));
        await().until(() -> x.getWaitingCount() == 2);
        assertThat(callee.concurrent()).isEqualTo(8);

        // Raised at runtime: the waiting calls get their permits and reach the callee (the pool grew too).
        assertThat(post("{\"maxConcurrentCalls\": 10}")).isEqualTo(200);
        await().until(() -> callee.concurrent() == 10);
        assertThat(x.getWaitingCount()).isZero();

        // A shorter maximum wait at runtime: with every permit taken, 3 more calls time out waiting.
        assertThat(post("{\"maxWaitDuration\": \"200ms\"}")).isEqualTo(200);
        for (int i = 0; i < 3; i++) {
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(this.client::slow)
                .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.WAIT_TIMED_OUT))
                .satisfies((ex) -> assertThat(ex.getBulkheadName()).isEqualTo("x"));
        }
        assertThat(callee.concurrent()).isEqualTo(10);

        callee.release();
        callers.join();
        assertThat(answers).hasSize(10).containsOnly("ok");
        assertThat(callee.maxConcurrent()).isEqualTo(10);
        assertThat(callee.requests()).isEqualTo(10);
        assertThat(callee.userAgents()).singleElement().asString().startsWith("Apache-HttpClient/5");
        assertThat(x.getPermittedCount()).isEqualTo(10);
        assertThat(x.getCompletedCount()).isEqualTo(10);
        assertThat(x.getRejectedCount(RejectionReason.WAIT_TIMED_OUT)).isEqualTo(3);
        assertThat(x.getRejectedCount()).isEqualTo(3);
        assertThat(x.getActiveCount()).isZero();

        String permitted = metric("loom.bulkhead.calls?tag=name:x&tag=outcome:permitted");
        assertThat(statistic(permitted, "COUNT")).isEqualTo(10.0);
        assertThat(JsonPath.<String>read(permitted, "$.baseUnit")).isEqualTo("calls");
        assertThat(statistic(metric("loom.bulkhead.calls?tag=name:x&tag=outcome:rejected&tag=reason:wait-timed-out"),
                "COUNT")).isEqualTo(3.0);
        assertThat(statistic(metric("loom.bulkhead.calls?tag=name:x&tag=outcome:rejected"), "COUNT")).isEqualTo(3.0);
        assertThat(statistic(metric("loom.bulkhead.execution?tag=name:x"), "COUNT")).isEqualTo(10.0);
        assertThat(statistic(metric("loom.bulkhead.wait?tag=name:x&tag=outcome:rejected"), "COUNT")).isEqualTo(3.0);
        assertThat(statistic(metric("loom.bulkhead.wait?tag=name:x&tag=outcome:rejected"), "TOTAL_TIME"))
            .as("3 calls waited at least 200 ms each").isGreaterThanOrEqualTo(0.6);
        assertThat(statistic(metric("loom.bulkhead.limit?tag=name:x"), "VALUE")).isEqualTo(10.0);
        assertThat(statistic(metric("loom.bulkhead.active?tag=name:x"), "VALUE")).isZero();
        assertThat(statistic(metric("loom.bulkhead.waiting?tag=name:x"), "VALUE")).isZero();

        String prometheus = actuator().get().uri("/prometheus").retrieve().body(String.class);
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_calls_total",
                "name=\"x\",outcome=\"permitted\",reason=\"none\"", "10.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_calls_total",
                "name=\"x\",outcome=\"rejected\",reason=\"wait-timed-out\"", "3.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_calls_total",
                "name=\"x\",outcome=\"rejected\",reason=\"queue-full\"", "0.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_limit_calls", "name=\"x\"", "10.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_active_calls", "name=\"x\"", "0.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_waiting_calls", "name=\"x\"", "0.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_execution_seconds_count", "name=\"x\"", "10"));
        assertThat(prometheus).containsPattern(
                sample("loom_bulkhead_wait_seconds_count", "name=\"x\",outcome=\"permitted\"", "10"));
        assertThat(prometheus).containsPattern(
                sample("loom_bulkhead_wait_seconds_count", "name=\"x\",outcome=\"rejected\"", "3"));
        assertThat(prometheus).contains("# HELP loom_bulkhead_calls_total Calls or tasks admitted");

        String state = actuator().get().uri("/bulkheads").retrieve().body(String.class);
        assertThat(JsonPath.<Integer>read(state, "$.bulkheads.x.limit")).isEqualTo(10);
        assertThat(JsonPath.<String>read(state, "$.bulkheads.x.config.maxWaitDuration")).isEqualTo("PT0.2S");
        assertThat(JsonPath.<Integer>read(state, "$.bulkheads.x.permitted")).isEqualTo(10);
        assertThat(JsonPath.<Integer>read(state, "$.bulkheads.x.completed")).isEqualTo(10);
        assertThat(JsonPath.<Integer>read(state, "$.bulkheads.x.rejectedByReason['wait-timed-out']")).isEqualTo(3);
        assertThat(JsonPath.<Integer>read(state, "$.bulkheads.x.active")).isZero();
    }

    private RestClient actuator() {
        return RestClient.create("http://localhost:" + this.port + "/actuator");
    }

    private String metric(String nameAndTags) {
        return actuator().get().uri("/metrics/" + nameAndTags).retrieve().body(String.class);
    }

    private int post(String json) {
        return actuator().post()
            .uri("/bulkheads/x")
            .contentType(MediaType.APPLICATION_JSON)
            .body(json)
            .exchange((request, response) -> response.getStatusCode().value());
    }

    private static double statistic(String metricsResponse, String statistic) {
        List<Double> values = JsonPath.read(metricsResponse,
                "$.measurements[?(@.statistic=='" + statistic + "')].value");
        assertThat(values).hasSize(1);
        return values.get(0);
    }

    private static Pattern sample(String metric, String labels, String value) {
        return Pattern.compile("(?m)^" + Pattern.quote(metric + "{" + labels + "} " + value) + "$");
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @ImportHttpServices(group = "callee", types = CalleeClient.class)
    static class TestApplication {

    }
}
