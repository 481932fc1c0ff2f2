package io.github.loombulkhead.autoconfigure.endpoint;

import java.time.Duration;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.BulkheadRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/** With {@code management.endpoint.bulkheads.access=unrestricted}, writes change limits; invalid ones change nothing. */
@SpringBootTest(classes = BulkheadsEndpointWriteAccessTests.TestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "loom.bulkhead.instances.y.max-concurrent-calls=5",
                "loom.bulkhead.instances.y.max-wait-duration=10s", "management.endpoints.web.exposure.include=bulkheads",
                "management.endpoint.bulkheads.access=unrestricted",
                // Spring Boot hides error messages by default; the reason is in the message when shown.
                "spring.web.error.include-message=always" })
class BulkheadsEndpointWriteAccessTests {

    @Autowired
    private BulkheadRegistry registry;

    @Autowired
    private MeterRegistry meterRegistry;

    @LocalServerPort
    private int port;

    /** Every test starts from the configured values, whatever the previous one changed. */
    @BeforeEach
    void configuredValues() {
        this.registry.bulkhead("y").changeLimit(5);
        this.registry.bulkhead("y").changeMaxWaitDuration(Duration.ofSeconds(10));
    }

    @Test
    void validWriteChangesLimitAndMaxWait() {
        Response response = post("/bulkheads/y", "{\"maxConcurrentCalls\": 12, \"maxWaitDuration\": \"3s\"}");
        assertThat(response.status()).isEqualTo(200);
        assertThat(JsonPath.<Integer>read(response.body(), "$.limit")).isEqualTo(12);
        assertThat(JsonPath.<String>read(response.body(), "$.config.maxWaitDuration")).isEqualTo("PT3S");
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(12);
        assertThat(this.meterRegistry.get("loom.bulkhead.limit").tag("name", "y").gauge().value()).isEqualTo(12.0);
    }

    @Test
    void invalidLimitIsRejectedWith400AndChangesNothing() {
        Response response = post("/bulkheads/y", "{\"maxConcurrentCalls\": 0, \"maxWaitDuration\": \"1s\"}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("maxConcurrentCalls must be at least 1 but was 0");
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(5);
        assertThat(this.registry.bulkhead("y").getConfig().getMaxWaitDuration()).hasSeconds(10);
    }

    @Test
    void negativeMaxWaitIsRejectedWith400AndChangesNothing() {
        Response response = post("/bulkheads/y", "{\"maxConcurrentCalls\": 7, \"maxWaitDuration\": \"-1s\"}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(5);
        assertThat(this.registry.bulkhead("y").getConfig().getMaxWaitDuration()).hasSeconds(10);
    }

    @Test
    void unknownBulkheadIsRejectedWith400() {
        Response response = post("/bulkheads/nope", "{\"maxConcurrentCalls\": 7}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("No bulkhead named 'nope'");
        assertThat(this.registry.find("nope")).isEmpty();
    }

    private Response post(String path, String json) {
        return RestClient.create("http://localhost:" + this.port + "/actuator")
            .post()
            .uri(path)
            .contentType(MediaType.APPLICATION_JSON)
            .body(json)
            .exchange((request, response) -> new Response(response.getStatusCode().value(),
                    response.bodyTo(String.class)));
    }

    private record Response(int status, String body) {
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TestApplication {

    }
}
