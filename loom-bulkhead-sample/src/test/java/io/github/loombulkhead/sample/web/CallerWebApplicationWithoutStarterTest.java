package io.github.loombulkhead.sample.web;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the starter off, the endpoints of the modes that need it answer {@code 503} and say what to set, instead of
 * failing the run with a bare {@code 500}. The context, and the callee it started, close after this class.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "loom.bulkhead.enabled=false", "loom.sample.requests=4", "loom.sample.limit=2",
                "loom.sample.callee.capacity=4", "loom.sample.callee.latency=20ms",
                "loom.sample.report-dir=target/web-application-without-starter-test" })
@DirtiesContext
class CallerWebApplicationWithoutStarterTest {

    @LocalServerPort
    int port;

    @Test
    void modesThatNeedTheStarterAreUnavailableAndSayWhatToSet() {
        for (String mode : new String[] { "loom-bulkhead-http", "loom-bulkhead-adaptive", "loom-bulkhead-cluster" }) {
            ResponseEntity<String> response = get("/api/test/" + mode);
            assertThat(response.getStatusCode()).as(mode).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
            assertThat(response.getBody()).as(mode)
                .contains("Mode " + mode + " cannot run in this application")
                .contains("needs the loom-bulkhead starter")
                .contains("spring.threads.virtual.enabled=true")
                .doesNotContain("loom.sample.modes");
        }
    }

    @Test
    void modesThatNeedNoStarterStillRun() {
        ResponseEntity<String> response = get("/api/test/virtual-limited");
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(response.getBody()).contains("\"succeeded\":4");
    }

    private ResponseEntity<String> get(String path) {
        return RestClient.create("http://localhost:" + this.port)
            .get()
            .uri(path)
            .retrieve()
            .onStatus((status) -> true, (request, reply) -> {
            })
            .toEntity(String.class);
    }
}
