package io.github.loombulkhead.autoconfigure.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A per-host bulkhead, whose name holds slashes ({@code out:http://127.0.0.1:<port>}), is read and changed through
 * {@code /actuator/bulkheads/<name>} with the name written as is, over a real server.
 */
@SpringBootTest(classes = BulkheadsEndpointPerHostTest.TestApplication.class,
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "loom.bulkhead.http.per-host.enabled=true",
                "loom.bulkhead.http.per-host.name-prefix=out:",
                "loom.bulkhead.http.per-host.template.max-concurrent-calls=4",
                "management.endpoints.web.exposure.include=bulkheads",
                "management.endpoint.bulkheads.access=unrestricted" })
class BulkheadsEndpointPerHostTest {

    private final HttpClient http = HttpClient.newHttpClient();

    @Autowired
    private BulkheadRegistry registry;

    @Autowired
    private RestClient.Builder restClientBuilder;

    @LocalServerPort
    private int port;

    private Bulkhead host;

    /** One call through a client with per-host bulkheads (to this application itself) creates the host's bulkhead. */
    @BeforeEach
    void callTheHost() {
        RestClient client = this.restClientBuilder.baseUrl("http://127.0.0.1:" + this.port).build();
        client.get().uri("/actuator/bulkheads").retrieve().toBodilessEntity();
        this.host = this.registry.find("out:http://127.0.0.1:" + this.port).orElseThrow();
        this.host.changeLimit(4);
    }

    @Test
    void readsAPerHostBulkheadByItsName() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(endpointUri()).GET());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(response.body(), "$.name")).isEqualTo(this.host.getName());
        assertThat(JsonPath.<Integer>read(response.body(), "$.limit")).isEqualTo(4);
        // The context is shared by the tests of this class: each made one call through the bulkhead.
        assertThat(JsonPath.<Integer>read(response.body(), "$.completed")).isPositive()
            .isEqualTo((int) this.host.getCompletedCount());
    }

    @Test
    void changesAPerHostBulkheadByItsName() throws Exception {
        HttpResponse<String> response = send(HttpRequest.newBuilder(endpointUri())
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"maxConcurrentCalls\": 9}")));
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(JsonPath.<String>read(response.body(), "$.name")).isEqualTo(this.host.getName());
        assertThat(this.host.getLimit()).isEqualTo(9);
    }

    @Test
    void anUnknownHostIsNotFound() throws Exception {
        URI unknown = URI.create("http://127.0.0.1:" + this.port + "/actuator/bulkheads/out:http://unknown.invalid:80");
        assertThat(send(HttpRequest.newBuilder(unknown).GET()).statusCode()).isEqualTo(404);
    }

    /** The name as is, slashes included, as {@code curl} would send it. */
    private URI endpointUri() {
        return URI.create("http://127.0.0.1:" + this.port + "/actuator/bulkheads/" + this.host.getName());
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TestApplication {

    }
}
