package io.github.loombulkhead.autoconfigure.http;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.client.RestClient;
import org.springframework.web.service.registry.ImportHttpServices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The whole path as an application uses it: an {@code @HttpExchange} client annotated {@code @Bulkhead("x")},
 * configured only through properties, calling a real server over Apache HttpClient 5, with Actuator on an
 * embedded Tomcat at a random port reporting exactly what happened.
 */
@SpringBootTest(classes = HttpClientBulkheadIntegrationTests.TestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "loom.bulkhead.instances.x.max-concurrent-calls=8",
                "loom.bulkhead.instances.x.queue-capacity=2",
                "management.endpoints.web.exposure.include=bulkheads,metrics,prometheus" })
@AutoConfigureMetrics
class HttpClientBulkheadIntegrationTests {

    private static final Callee callee = Callee.start();

    @Autowired
    private CalleeClient client;

    @Autowired
    private BulkheadRegistry registry;

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void calleeUrl(DynamicPropertyRegistry registry) {
        registry.add("spring.http.serviceclient.callee.base-url", callee::baseUrl);
    }

    @AfterAll
    static void stopCallee() {
        callee.close();
    }

    @Test
    void calleeNeverSeesMoreThanTheLimitAndActuatorReportsExactCounts() throws InterruptedException {
        Bulkhead x = this.registry.bulkhead("x");
        Queue<String> answers = new ConcurrentLinkedQueue<>();
        List<Thread> callers = new ArrayList<>();
        // 8 calls hold every permit; the pool (HttpClient 5 defaults to 5 per route) must not cap them below 8.
        for (int i = 0; i < 8; i++) {
            callers.add(Thread.ofVirtual().start(() -> answers.add(this.client.slow())));
        }
        await().until(() -> callee.inFlight() == 8);
        // 2 more wait in the bulkhead's queue (capacity 2) without reaching the callee.
        for (int i = 0; i < 2; i++) {
            callers.add(Thread.ofVirtual().start(() -> answers.add(this.client.slow())));
        }
        await().until(() -> x.getWaitingCount() == 2);
        // 3 more are refused at once: queue full.
        for (int i = 0; i < 3; i++) {
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(this.client::slow)
                .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL))
                .satisfies((ex) -> assertThat(ex.getBulkheadName()).isEqualTo("x"));
        }
        assertThat(callee.inFlight()).isEqualTo(8);
        callee.release();
        for (Thread caller : callers) {
            caller.join(30_000);
        }
        assertThat(answers).hasSize(10).containsOnly("ok");
        assertThat(callee.maxInFlight()).isEqualTo(8);
        assertThat(callee.total()).isEqualTo(10);
        assertThat(x.getPermittedCount()).isEqualTo(10);
        assertThat(x.getCompletedCount()).isEqualTo(10);
        assertThat(x.getRejectedCount(RejectionReason.QUEUE_FULL)).isEqualTo(3);
        assertThat(x.getActiveCount()).isZero();

        RestClient actuator = RestClient.create("http://localhost:" + this.port + "/actuator");
        String permitted = actuator.get()
            .uri("/metrics/loom.bulkhead.calls?tag=name:x&tag=outcome:permitted")
            .retrieve()
            .body(String.class);
        assertThat(count(permitted)).isEqualTo(10.0);
        assertThat(JsonPath.<String>read(permitted, "$.baseUnit")).isEqualTo("calls");
        String rejected = actuator.get()
            .uri("/metrics/loom.bulkhead.calls?tag=name:x&tag=outcome:rejected&tag=reason:queue-full")
            .retrieve()
            .body(String.class);
        assertThat(count(rejected)).isEqualTo(3.0);
        String execution = actuator.get()
            .uri("/metrics/loom.bulkhead.execution?tag=name:x")
            .retrieve()
            .body(String.class);
        assertThat(count(execution)).isEqualTo(10.0);

        String prometheus = actuator.get().uri("/prometheus").retrieve().body(String.class);
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_calls_total",
                "name=\"x\",outcome=\"permitted\",reason=\"none\"", "10.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_calls_total",
                "name=\"x\",outcome=\"rejected\",reason=\"queue-full\"", "3.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_calls_total",
                "name=\"x\",outcome=\"rejected\",reason=\"wait-timed-out\"", "0.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_limit_calls", "name=\"x\"", "8.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_active_calls", "name=\"x\"", "0.0"));
        assertThat(prometheus).containsPattern(sample("loom_bulkhead_execution_seconds_count", "name=\"x\"", "10"));
        assertThat(prometheus).containsPattern(
                sample("loom_bulkhead_wait_seconds_count", "name=\"x\",outcome=\"rejected\"", "3"));
        assertThat(prometheus).contains("# HELP loom_bulkhead_calls_total Calls or tasks admitted");
    }

    @Test
    void endpointReadsEveryBulkhead() {
        String body = RestClient.create("http://localhost:" + this.port + "/actuator")
            .get()
            .uri("/bulkheads")
            .retrieve()
            .body(String.class);
        assertThat(JsonPath.<Integer>read(body, "$.bulkheads.x.limit")).isEqualTo(8);
        assertThat(JsonPath.<Integer>read(body, "$.bulkheads.x.config.queueCapacity")).isEqualTo(2);
        assertThat(JsonPath.<String>read(body, "$.bulkheads.x.config.maxWaitDuration")).isEqualTo("PT1M");
        assertThat(JsonPath.<Integer>read(body, "$.bulkheads.x.active")).isZero();
    }

    @Test
    void endpointRefusesWritesByDefault() {
        HttpStatusCode status = RestClient.create("http://localhost:" + this.port + "/actuator")
            .post()
            .uri("/bulkheads/x")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"maxConcurrentCalls\": 3}")
            .exchange((request, response) -> response.getStatusCode());
        assertThat(status.value()).isEqualTo(405);
        assertThat(this.registry.bulkhead("x").getLimit()).isEqualTo(8);
    }

    private static double count(String metricsResponse) {
        List<Double> counts = JsonPath.read(metricsResponse, "$.measurements[?(@.statistic=='COUNT')].value");
        assertThat(counts).hasSize(1);
        return counts.get(0);
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
