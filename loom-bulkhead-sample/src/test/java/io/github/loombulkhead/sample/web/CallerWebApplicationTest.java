package io.github.loombulkhead.sample.web;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.http.PooledHttpRequestFactories;
import io.github.loombulkhead.sample.Mode;
import io.github.loombulkhead.sample.compare.ModeRunner;
import io.github.loombulkhead.sample.mode.Modes;
import io.github.loombulkhead.sample.report.RunReport;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Without {@code --loom.sample.run=compare} the caller stays up as a web application: one endpoint per mode
 * (and the reference's names), each running the mode against its callee, plus Actuator and Prometheus.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "loom.sample.requests=30", "loom.sample.limit=5", "loom.sample.callee.capacity=10",
                "loom.sample.callee.latency=50ms", "loom.sample.read-timeout=5s",
                "loom.sample.report-dir=target/web-application-test" })
class CallerWebApplicationTest {

    @LocalServerPort
    int port;

    @Autowired
    ModeRunner runner;

    @Autowired
    BulkheadRegistry registry;

    @Autowired
    PoolingHttpClientConnectionManager connections;

    private RestClient client;

    private BulkheadConfig calleeBulkhead;

    @BeforeEach
    void client() {
        this.client = RestClient.create("http://localhost:" + this.port);
    }

    /** A run's {@code limit} (and its deadline) stay on the shared {@code callee} bulkhead: each test starts anew. */
    @BeforeEach
    void rememberCalleeBulkhead() {
        this.calleeBulkhead = this.registry.bulkhead(Modes.HTTP_BULKHEAD_NAME).getConfig();
    }

    @AfterEach
    void restoreCalleeBulkhead() {
        Bulkhead callee = this.registry.bulkhead(Modes.HTTP_BULKHEAD_NAME);
        callee.changeLimit(this.calleeBulkhead.getMaxConcurrentCalls());
        callee.changeMaxWaitDuration(this.calleeBulkhead.getMaxWaitDuration());
    }

    @Test
    void referenceEndpointRunsItsModeWithTheConfiguredScenario() {
        RunReport run = get("/api/test/virtual-limited", RunReport.class).getBody();
        assertThat(run).isNotNull();
        assertThat(run.mode()).isEqualTo("virtual-semaphore");
        assertThat(run.requests()).isEqualTo(30);
        assertThat(run.succeeded()).isEqualTo(30);
        assertThat(run.peakInFlight()).isLessThanOrEqualTo(5);
        assertThat(run.timeline()).isEmpty();
    }

    @Test
    void modeEndpointTakesRequestsLimitAndTimeline() {
        RunReport run = get("/api/test/thread-pool?requests=12&limit=3&timeline=true", RunReport.class).getBody();
        assertThat(run).isNotNull();
        assertThat(run.mode()).isEqualTo("thread-pool");
        assertThat(run.succeeded()).isEqualTo(12);
        assertThat(run.peakInFlight()).isLessThanOrEqualTo(3);
        assertThat(run.timeline()).isNotEmpty();
    }

    @Test
    void annotatedClientIsBoundedInTheWebApplicationToo() {
        RunReport run = get("/api/test/loom-bulkhead-http?requests=20&limit=4", RunReport.class).getBody();
        assertThat(run).isNotNull();
        assertThat(run.succeeded()).isEqualTo(20);
        assertThat(run.peakInFlight()).isLessThanOrEqualTo(4);
    }

    @Test
    void adaptiveModesRunInTheWebApplicationAndReportTheirLimitOverTime() {
        // The Netflix mode where it can run (JDK 24+).
        for (String mode : Stream.of(Mode.LOOM_BULKHEAD_ADAPTIVE, Mode.NETFLIX_GRADIENT2)
            .filter(Mode.defaults()::contains)
            .map(Mode::id)
            .toList()) {
            RunReport run = get("/api/test/" + mode + "?requests=20&timeline=true", RunReport.class).getBody();
            assertThat(run).isNotNull();
            assertThat(run.succeeded()).as(mode).isEqualTo(20);
            assertThat(run.timeline()).as(mode).isNotEmpty().allSatisfy((point) ->
                    assertThat(point.limit()).as(mode + " limit").isNotNull().isBetween(1, 1_000));
        }
    }

    @Test
    void connectionPoolHoldsEveryBulkheadOfTheCalleeGroupWhicheverModesRun() {
        // The cluster mode is not among the modes to run here; its bulkhead still belongs to the group.
        int bounded = PooledHttpRequestFactories.poolLimit(List.of(this.registry.bulkhead(Modes.HTTP_BULKHEAD_NAME),
                this.registry.bulkhead(Modes.CLUSTER_BULKHEAD_NAME), this.registry.bulkhead(Modes.ADAPTIVE_BULKHEAD_NAME)));
        assertThat(bounded).isEqualTo(5 + 5 + 1_000);
        assertThat(this.connections.getDefaultMaxPerRoute()).isGreaterThanOrEqualTo(bounded);
        assertThat(this.connections.getMaxTotal()).isGreaterThanOrEqualTo(bounded);
    }

    @Test
    void clusterModeWithoutRedisIsUnavailableAndSaysHowToGiveItOne() {
        ResponseEntity<String> response = get("/api/test/loom-bulkhead-cluster?requests=4", String.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
        assertThat(response.getBody()).contains("loom-bulkhead-cluster needs Redis").contains("spring.data.redis.host");
    }

    @Test
    void unknownModeIsNotFoundAndTheAnswerListsTheModes() {
        ResponseEntity<String> response = get("/api/test/turbo", String.class);
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.NOT_FOUND);
        assertThat(response.getBody()).contains("loom-bulkhead-http").contains("virtual-limited");
    }

    @Test
    void requestsOutsideWhatTheClientCanCarryAreABadRequest() {
        assertThat(get("/api/test/thread-pool?requests=0", String.class).getStatusCode())
            .isEqualTo(HttpStatus.BAD_REQUEST);
        // The pool holds the static limits of callee and callee-cluster (5 each) plus the adaptive ceiling (1,000).
        ResponseEntity<String> tooMany = get("/api/test/thread-pool?requests=1011", String.class);
        assertThat(tooMany.getStatusCode()).isEqualTo(HttpStatus.BAD_REQUEST);
        assertThat(tooMany.getBody()).contains("at most 1010").contains("--loom.sample.requests=1011");
    }

    @Test
    void secondRunWhileOneIsInProgressIsAConflict() {
        CompletableFuture<ResponseEntity<RunReport>> first = CompletableFuture
            .supplyAsync(() -> get("/api/test/loom-bulkhead?requests=200&limit=5", RunReport.class));
        await().until(this.runner::isRunning);
        assertThat(get("/api/test/thread-pool", String.class).getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
        ResponseEntity<RunReport> response = first.join();
        assertThat(response.getStatusCode()).isEqualTo(HttpStatus.OK);
        assertThat(response.getBody()).isNotNull();
        assertThat(response.getBody().succeeded()).isEqualTo(200);
    }

    @Test
    void prometheusShowsTheSamplesCallsAndTheBulkhead() {
        get("/api/test/virtual?requests=7", RunReport.class);
        String metrics = get("/actuator/prometheus", String.class).getBody();
        assertThat(metrics).isNotNull();
        Matcher count = Pattern
            .compile("loom_sample_calls_seconds_count\\{[^}]*mode=\"virtual-unbounded\",outcome=\"success\"[^}]*} (\\S+)")
            .matcher(metrics);
        assertThat(count.find()).as(metrics).isTrue();
        assertThat(Double.parseDouble(count.group(1))).isGreaterThanOrEqualTo(7);
        assertThat(metrics).contains("loom_sample_calls_in_flight").contains("loom_bulkhead_limit")
            .contains("name=\"callee\"");
    }

    private <T> ResponseEntity<T> get(String path, Class<T> type) {
        return this.client.get().uri(path).retrieve().onStatus((status) -> true, (request, response) -> {
        }).toEntity(type);
    }
}
