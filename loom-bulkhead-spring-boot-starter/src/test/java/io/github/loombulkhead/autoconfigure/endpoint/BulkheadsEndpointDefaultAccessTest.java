package io.github.loombulkhead.autoconfigure.endpoint;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.BulkheadRegistry;
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

/** Exposed but not granted write access, the {@code bulkheads} endpoint reads and refuses every change. */
@SpringBootTest(classes = BulkheadsEndpointDefaultAccessTest.TestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "loom.bulkhead.instances.z.max-concurrent-calls=4",
                "management.endpoints.web.exposure.include=bulkheads" })
class BulkheadsEndpointDefaultAccessTest {

    @Autowired
    private BulkheadRegistry registry;

    @LocalServerPort
    private int port;

    @Test
    void readsButRefusesWritesByDefault() {
        RestClient actuator = RestClient.create("http://localhost:" + this.port + "/actuator");
        String body = actuator.get().uri("/bulkheads/z").retrieve().body(String.class);
        assertThat(JsonPath.<Integer>read(body, "$.limit")).isEqualTo(4);

        int status = actuator.post()
            .uri("/bulkheads/z")
            .contentType(MediaType.APPLICATION_JSON)
            .body("{\"maxConcurrentCalls\": 9}")
            .exchange((request, response) -> response.getStatusCode().value());

        assertThat(status).isEqualTo(405);
        assertThat(this.registry.find("z").orElseThrow().getLimit()).isEqualTo(4);
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TestApplication {

    }
}
