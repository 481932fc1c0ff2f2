package io.github.loombulkhead.autoconfigure.endpoint;

import java.time.Duration;
import java.util.Map;

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
@SpringBootTest(classes = BulkheadsEndpointWriteAccessTest.TestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "loom.bulkhead.instances.y.max-concurrent-calls=5",
                "loom.bulkhead.instances.y.max-wait-duration=10s", "loom.bulkhead.instances.z.max-concurrent-calls=100",
                "loom.bulkhead.instances.z.adaptive.enabled=true", "loom.bulkhead.instances.z.adaptive.initial-limit=20",
                "loom.bulkhead.instances.z.adaptive.min-limit=5", "management.endpoints.web.exposure.include=bulkheads",
                "management.endpoint.bulkheads.access=unrestricted",
                // Spring Boot hides error messages by default; the reason is in the message when shown.
                "spring.web.error.include-message=always" })
class BulkheadsEndpointWriteAccessTest {

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
        this.registry.bulkhead("z").changeLimit(100);
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
    void aStaticBulkheadReadsWithoutAlgorithm() {
        Response response = get("/bulkheads/y");
        assertThat(response.status()).isEqualTo(200);
        assertThat(JsonPath.<Boolean>read(response.body(), "$.adaptive")).isFalse();
        assertThat(JsonPath.<Map<String, Object>>read(response.body(), "$")).doesNotContainKeys("algorithm", "change");
    }

    @Test
    void anAdaptiveBulkheadReadsWithAlgorithmEstimatesLimitAndCeiling() {
        Response response = get("/bulkheads/z");
        assertThat(response.status()).isEqualTo(200);
        assertThat(JsonPath.<Boolean>read(response.body(), "$.adaptive")).isTrue();
        assertThat(JsonPath.<Integer>read(response.body(), "$.limit")).isEqualTo(this.registry.bulkhead("z").getLimit());
        assertThat(JsonPath.<String>read(response.body(), "$.algorithm.name")).isEqualTo("gradient");
        assertThat(JsonPath.<Integer>read(response.body(), "$.algorithm.minLimit")).isEqualTo(5);
        assertThat(JsonPath.<Integer>read(response.body(), "$.algorithm.ceiling")).isEqualTo(100);
        assertThat(JsonPath.<Integer>read(response.body(), "$.config.maxConcurrentCalls")).isEqualTo(100);
        assertThat(JsonPath.<Map<String, Object>>read(response.body(), "$.algorithm.estimates"))
            .containsOnlyKeys(this.registry.bulkhead("z").getLimitAlgorithm().getEstimates().keySet());
    }

    @Test
    void aWriteToAnAdaptiveBulkheadSetsItsCeilingAndSaysSo() {
        Response response = post("/bulkheads/z", "{\"maxConcurrentCalls\": 60}");
        assertThat(response.status()).isEqualTo(200);
        assertThat(JsonPath.<Integer>read(response.body(), "$.config.maxConcurrentCalls")).isEqualTo(60);
        assertThat(JsonPath.<Integer>read(response.body(), "$.algorithm.ceiling")).isEqualTo(60);
        assertThat(JsonPath.<Integer>read(response.body(), "$.limit")).isEqualTo(20);
        assertThat(JsonPath.<String>read(response.body(), "$.change")).isEqualTo("maxConcurrentCalls is the ceiling "
                + "of this adaptive bulkhead: set to 60; the gradient algorithm restarted at limit 20 and finds the "
                + "limit between 5 and 60");
        assertThat(this.registry.bulkhead("z").isAdaptive()).isTrue();
        assertThat(this.meterRegistry.get("loom.bulkhead.adaptive.ceiling").tag("name", "z").gauge().value())
            .isEqualTo(60.0);
        assertThat(this.meterRegistry.get("loom.bulkhead.limit").tag("name", "z").gauge().value()).isEqualTo(20.0);
    }

    @Test
    void aCeilingBelowTheMinimumIsRejectedWith400AndChangesNothing() {
        Response response = post("/bulkheads/z", "{\"maxConcurrentCalls\": 4}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("must be at least its minLimit 5 but was 4");
        assertThat(this.registry.bulkhead("z").getConfig().getMaxConcurrentCalls()).isEqualTo(100);
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

    @Test
    void aNameInTheBodyOrQueryCannotRedirectTheWriteToAnotherBulkhead() {
        Response body = post("/bulkheads/y", "{\"name\": \"z\", \"maxConcurrentCalls\": 60}");
        assertThat(body.status()).isEqualTo(400);
        assertThat(body.body()).contains("The request names bulkhead 'z' but is addressed to 'y'");
        Response query = post("/bulkheads/y?name=z", "{\"maxConcurrentCalls\": 60}");
        assertThat(query.status()).isEqualTo(400);
        // The path's own parameter had this name once: Spring Boot lets a key of the same name replace it.
        Response selector = post("/bulkheads/y?bulkhead=z", "{\"bulkhead\": \"z\", \"maxConcurrentCalls\": 60}");
        assertThat(selector.status()).isEqualTo(400);
        assertThat(selector.body()).contains("unknown field 'bulkhead'");
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(5);
        assertThat(this.registry.bulkhead("z").getConfig().getMaxConcurrentCalls()).isEqualTo(100);
        // Its own name, as a read shows it, is fine.
        assertThat(post("/bulkheads/y", "{\"name\": \"y\", \"maxConcurrentCalls\": 6}").status()).isEqualTo(200);
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(6);
    }

    @Test
    void aMisspelledFieldIsRefusedByNameInsteadOfDroppedBesideAValidOne() {
        Response response = post("/bulkheads/y", "{\"maxConcurrentCalls\": 12, \"maxWaitDuraton\": \"3s\"}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("A write changes maxConcurrentCalls and/or maxWaitDuration but the request "
                + "has unknown field 'maxWaitDuraton'; send only the fields to change; nothing changed");
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(5);
        assertThat(this.registry.bulkhead("y").getConfig().getMaxWaitDuration()).hasSeconds(10);
    }

    @Test
    void anUnknownQueryParameterIsRefusedToo() {
        Response response = post("/bulkheads/y?maxConcurentCalls=9", "{\"maxWaitDuration\": \"3s\"}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("unknown field 'maxConcurentCalls'");
        assertThat(this.registry.bulkhead("y").getConfig().getMaxWaitDuration()).hasSeconds(10);
        // Known fields work from the query string as from the body.
        assertThat(post("/bulkheads/y?maxConcurrentCalls=9", "{}").status()).isEqualTo(200);
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(9);
    }

    @Test
    void fieldsOfAReadsAnswerAreNamedReadOnlyWithTheFieldThatChangesThem() {
        Response response = post("/bulkheads/z",
                "{\"name\": \"z\", \"limit\": 30, \"adaptive\": false, \"typo\": 1}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("but the request has unknown field 'typo' and read-only fields "
                + "'adaptive', 'limit' (of a read's answer; maxConcurrentCalls sets the limit of a static bulkhead and "
                + "the ceiling of an adaptive one); send only the fields to change; nothing changed");
        Response alone = post("/bulkheads/z", "{\"limit\": 30}");
        assertThat(alone.status()).isEqualTo(400);
        assertThat(alone.body()).contains("but the request has read-only field 'limit' (of a read's answer;");
        assertThat(this.registry.bulkhead("z").getConfig().getMaxConcurrentCalls()).isEqualTo(100);
    }

    @Test
    void aWriteToAnUnknownBulkheadSaysSoWhateverElseItCarries() {
        assertThat(post("/bulkheads/nope", "{\"name\": \"x\", \"queueCapacity\": 3}").body())
            .contains("No bulkhead named 'nope'");
    }

    @Test
    void settingsThatCannotChangeAtRuntimeAreRefusedByName() {
        Response response = post("/bulkheads/y", "{\"maxConcurrentCalls\": 7, \"queueCapacity\": 3, \"fair\": false}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("queueCapacity and fair cannot be changed at runtime; set "
                + "loom.bulkhead.instances.y.queue-capacity and loom.bulkhead.instances.y.fair and restart");
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(5);
    }

    @Test
    void aMaxWaitWithoutAUnitIsRefused() {
        for (String wait : new String[] { "30", "\"30\"" }) {
            Response response = post("/bulkheads/y", "{\"maxWaitDuration\": " + wait + "}");
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.body()).contains("maxWaitDuration needs a unit (30s, 500ms, PT30S) but was '30'");
        }
        assertThat(this.registry.bulkhead("y").getConfig().getMaxWaitDuration()).hasSeconds(10);
    }

    @Test
    void aMaxWaitOfZeroNeedsNoUnitAsInTheProperties() {
        try {
            Response response = post("/bulkheads/y", "{\"maxWaitDuration\": 0}");
            assertThat(response.status()).isEqualTo(200);
            assertThat(this.registry.bulkhead("y").getConfig().getMaxWaitDuration()).isZero();
        }
        finally {
            this.registry.bulkhead("y").changeMaxWaitDuration(Duration.ofSeconds(10));
        }
    }

    @Test
    void valuesThatAreNotNumbersOrDurationsAreRefusedByName() {
        assertThat(post("/bulkheads/y", "{\"maxWaitDuration\": \"10 seconds\"}").body())
            .contains("maxWaitDuration must be a duration such as");
        for (String limit : new String[] { "7.9", "\"abc\"", "true", "3000000000" }) {
            Response response = post("/bulkheads/y", "{\"maxConcurrentCalls\": " + limit + "}");
            assertThat(response.status()).isEqualTo(400);
            assertThat(response.body())
                .contains("maxConcurrentCalls must be a whole number from 1 to 2147483647 but was '");
        }
        assertThat(this.registry.bulkhead("y").getLimit()).isEqualTo(5);
    }

    private Response get(String path) {
        return RestClient.create("http://localhost:" + this.port + "/actuator")
            .get()
            .uri(path)
            .exchange((request, response) -> new Response(response.getStatusCode().value(),
                    response.bodyTo(String.class)));
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
