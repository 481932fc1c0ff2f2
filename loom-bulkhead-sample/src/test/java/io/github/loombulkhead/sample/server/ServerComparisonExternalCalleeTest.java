package io.github.loombulkhead.sample.server;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import io.github.loombulkhead.sample.SampleArgumentException;
import io.github.loombulkhead.sample.callee.CalleeStatus;
import io.github.loombulkhead.sample.launch.ManagedCallee;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.within;

/**
 * The server comparison against a callee that runs elsewhere ({@code --loom.sample.callee.url}), a real callee JVM
 * started with 4 workers and a latency of 300 ms: the comparison sets the callee's workers to its own capacity and
 * refuses a callee whose latency is not the one its Little's-law bound assumes, as the client comparison does.
 */
class ServerComparisonExternalCalleeTest {

    @TempDir
    static Path directory;

    private static ManagedCallee callee;

    @BeforeAll
    static void startCallee() {
        callee = ManagedCallee.start(new ManagedCallee.Settings(0, List.of("-Xmx256m"), Duration.ofSeconds(120)),
                List.of("--loom.sample.callee.capacity=4", "--loom.sample.callee.latency=300ms"),
                directory.resolve("callee.log"));
    }

    @AfterAll
    static void stopCallee() {
        if (callee != null) {
            callee.close();
        }
    }

    @Test
    void calleeStartedWithAnotherLatencyIsRefusedBeforeAnyFrontServerStarts() {
        Path reportDir = directory.resolve("latency");
        // The server comparison's callee latency is 200 ms unless set.
        // A SampleArgumentException: the sample exits with the bad-argument code 2.
        assertThatExceptionOfType(SampleArgumentException.class)
            .isThrownBy(() -> run(reportDir, "--loom.sample.callee.capacity=10"))
            .withMessage("The callee answers in 300 ms, but loom.sample.callee.latency is 200 ms, from which the "
                    + "report computes the Little's-law bound; set --loom.sample.callee.latency=300ms, or start "
                    + "the callee with --loom.sample.callee.latency=200ms");
        assertThat(reportDir.resolve("front-virtual.log")).doesNotExist();
        assertThat(reportDir.resolve("report.json")).doesNotExist();
    }

    @Test
    void externalCalleeRunsWithTheScenariosCapacity() throws Exception {
        Path reportDir = directory.resolve("capacity");
        run(reportDir, "--loom.sample.callee.capacity=10", "--loom.sample.callee.latency=300ms").close();
        assertThat(status().capacity()).isEqualTo(10);
        ServerReport report = new ServerReportWriter().read(reportDir.resolve("report.json"));
        assertThat(report.scenario().calleeCapacity()).isEqualTo(10);
        assertThat(report.scenario().calleeLatencyMs()).isEqualTo(300);
        assertThat(report.server()).singleElement().satisfies((result) -> {
            assertThat(result.served()).isEqualTo(4);
            // 2 requests at once, each two calls of 300 ms.
            assertThat(result.littlesLawBound()).isCloseTo(2 / 0.6, within(1e-9));
        });
    }

    private static ConfigurableApplicationContext run(Path reportDir, String... scenario) {
        List<String> arguments = new ArrayList<>(List.of("--loom.sample.run=server-compare",
                "--loom.sample.callee.url=" + callee.baseUrl(), "--loom.sample.read-timeout=3s",
                "--loom.sample.connect-timeout=2s", "--loom.sample.server.setups=virtual",
                "--loom.sample.server.concurrency=2", "--loom.sample.server.requests=4",
                "--loom.sample.server.warmup-requests=0", "--loom.sample.server.level-duration=0s",
                "--loom.sample.report-dir=" + reportDir));
        arguments.addAll(List.of(scenario));
        return new SpringApplicationBuilder(LoomBulkheadSampleApplication.class).run(arguments.toArray(String[]::new));
    }

    private static CalleeStatus status() throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> response = client.send(
                    HttpRequest.newBuilder(URI.create(callee.baseUrl() + "/api/test/status")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return JsonMapper.builder().build().readValue(response.body(), CalleeStatus.class);
        }
    }
}
