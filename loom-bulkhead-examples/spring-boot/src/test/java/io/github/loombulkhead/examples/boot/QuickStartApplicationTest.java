package io.github.loombulkhead.examples.boot;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.examples.GatedCallee;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's Spring Boot quick start as a user builds it: this module has exactly the README's dependencies,
 * {@link CalleeClient}, {@link Application} and {@code application.yml} are the README's code and configuration
 * (checked by {@code DocsSnippetsTest}), and the application runs with a real web server against a loopback
 * callee; only the callee's base URL and the server port differ.
 */
class QuickStartApplicationTest {

    private static final int CALLS = 150;

    private static final int LIMIT = 100;

    @RegisterExtension
    final GatedCallee callee = new GatedCallee();

    private final HttpClient http = HttpClient.newHttpClient();

    @AfterEach
    void closeHttpClient() {
        this.http.close();
    }

    @Test
    @SuppressWarnings("try") // the gate is closed for its side effect: it opens the callee first
    void annotatedClientIsBoundedAndItsBulkheadIsInActuatorAndPrometheus() throws Exception {
        try (ConfigurableApplicationContext application = SpringApplication.run(Application.class,
                "--server.port=0", "--spring.http.serviceclient.callee.base-url=" + this.callee.baseUrl());
                ExecutorService callers = Executors.newVirtualThreadPerTaskExecutor();
                AutoCloseable gate = this.callee::open) {
            String actuator = "http://127.0.0.1:" + application.getEnvironment().getProperty("local.server.port")
                    + "/actuator";
            CalleeClient client = application.getBean(CalleeClient.class);
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < CALLS; i++) {
                calls.add(callers.submit(client::slow));
            }
            await().until(() -> this.callee.inFlight() == LIMIT
                    && get(actuator + "/bulkheads/callee").read("$.waiting", Integer.class) == CALLS - LIMIT);

            DocumentContext bulkhead = get(actuator + "/bulkheads/callee");
            assertThat(bulkhead.read("$.limit", Integer.class)).isEqualTo(LIMIT);
            assertThat(bulkhead.read("$.active", Integer.class)).isEqualTo(LIMIT);
            assertThat(bulkhead.read("$.config.maxWaitDuration", String.class)).isEqualTo("PT1M");
            assertThat(bulkhead.read("$.config.queueCapacity", Integer.class)).isEqualTo(10_000);
            assertThat(text(actuator + "/prometheus")).contains("loom_bulkhead_limit_calls{name=\"callee\"} 100.0\n",
                    "loom_bulkhead_active_calls{name=\"callee\"} 100.0\n", "loom_bulkhead_waiting_calls{name=\"callee\"} 50.0\n");

            this.callee.open();
            for (Future<String> call : calls) {
                assertThat(call.get(30, TimeUnit.SECONDS)).isEqualTo("ok");
            }
            assertThat(this.callee.maxInFlight()).isEqualTo(LIMIT);
            assertThat(this.callee.served()).isEqualTo(CALLS);
            assertThat(text(actuator + "/prometheus"))
                .contains("loom_bulkhead_calls_total{name=\"callee\",outcome=\"permitted\",reason=\"none\"} 150.0\n",
                        "loom_bulkhead_calls_total{name=\"callee\",outcome=\"rejected\",reason=\"queue-full\"} 0.0\n");
        }
    }

    private DocumentContext get(String uri) throws IOException, InterruptedException {
        return JsonPath.parse(text(uri));
    }

    private String text(String uri) throws IOException, InterruptedException {
        HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(URI.create(uri)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as("GET %s", uri).isEqualTo(200);
        return response.body();
    }
}
