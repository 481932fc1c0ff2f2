package io.github.loombulkhead.sample.server;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import io.github.loombulkhead.sample.LoomBulkheadSampleApplication;
import io.github.loombulkhead.sample.report.Chromium;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.within;

/**
 * Runs the server comparison once on a tiny scenario with the real ab (Debian package apache2-utils), a real
 * callee JVM and a real front-server JVM per setup, and checks the report.
 * <p>
 * Scenario: callee with 10 workers answering in 200 ms, read timeout 3 s (nothing times out on a busy build
 * machine), 60 requests per setup at concurrency 4 and 30. At 30 the setups that bound their calls keep at most
 * 20 (Tomcat's threads) or 10 (the bulkheads, at the callee's capacity) calls in flight; plain virtual threads
 * send all 30 requests' calls, which queue at the callee. virtual-inbound lets 10 run and the rest wait; the
 * queue of virtual-inbound-shed holds 10, so at 30 it answers the rest with 503.
 */
class ServerComparisonTest {

    static final int CAPACITY = 10;

    static final int REQUESTS = 60;

    @TempDir
    static Path reportDir;

    private static ConfigurableApplicationContext context;

    private static JsonNode json;

    private static Map<String, ServerReport.Result> at30;

    @BeforeAll
    static void runServerComparison() throws Exception {
        context = new SpringApplicationBuilder(LoomBulkheadSampleApplication.class).run(
                "--loom.sample.run=server-compare", "--loom.sample.callee.capacity=" + CAPACITY,
                "--loom.sample.read-timeout=3s", "--loom.sample.connect-timeout=2s",
                "--loom.sample.server.concurrency=4,30", "--loom.sample.server.requests=" + REQUESTS,
                "--loom.sample.server.warmup-requests=30", "--loom.sample.server.level-duration=0s",
                "--loom.sample.report-dir=" + reportDir);
        json = JsonMapper.builder().build().readTree(reportDir.resolve("report.json").toFile());
        ServerReport report = new ServerReportWriter().read(reportDir.resolve("report.json"));
        at30 = report.server()
            .stream()
            .filter((result) -> result.concurrency() == 30)
            .collect(Collectors.toMap(ServerReport.Result::setup, Function.identity()));
    }

    @AfterAll
    static void close() {
        if (context != null) {
            context.close();
        }
    }

    @Test
    void everySetupRunsAtEveryLevelInOrderWithTheContractFields() {
        List<String> rows = new ArrayList<>();
        for (JsonNode row : json.get("server")) {
            rows.add(row.get("setup").asString() + "@" + row.get("concurrency").asInt());
            for (String field : List.of("setup", "concurrency", "requests", "requestsPerSecond", "meanMs", "p50Ms",
                    "p99Ms", "failed", "non2xx")) {
                assertThat(row.has(field)).as("field %s of %s", field, row).isTrue();
            }
            assertThat(row.get("requests").asLong()).isEqualTo(REQUESTS);
            assertThat(row.get("failed").asLong()).as("failed in %s", row).isZero();
            assertThat(row.get("unanswered").asLong()).as("unanswered in %s", row).isZero();
            // Every request was answered: with 2xx, or (shed) with 503.
            assertThat(row.get("served").asLong() + row.get("non2xx").asLong()).as("answers in %s", row)
                .isEqualTo(REQUESTS);
            if (!rows.getLast().equals("virtual-inbound-shed@30")) {
                assertThat(row.get("non2xx").asLong()).as("non-2xx in %s", row).isZero();
            }
            assertThat(row.get("requestsPerSecond").asDouble()).isPositive();
            assertThat(row.get("p99Ms").asLong()).isGreaterThanOrEqualTo(row.get("p50Ms").asLong())
                .isGreaterThanOrEqualTo(200);
        }
        assertThat(rows).containsExactly("tomcat-20@4", "tomcat-20@30", "tomcat-50@4", "tomcat-50@30", "virtual@4",
                "virtual@30", "virtual-parallel@4", "virtual-parallel@30", "virtual-bulkhead@4",
                "virtual-bulkhead@30", "virtual-inbound@4", "virtual-inbound@30", "virtual-inbound-shed@4",
                "virtual-inbound-shed@30");
        assertThat(json.get("scenario").get("calleeLatencyMs").asLong()).isEqualTo(200);
        assertThat(json.get("scenario").get("calleeCapacity").asInt()).isEqualTo(CAPACITY);
        // 30 requests at most, 10 at once, each two calls of at most 2 s + 3 s (connect and read timeouts): a request
        // waits at most 3 x 10 s; twice that and 10 s.
        assertThat(json.get("scenario").get("inboundMaxWaitMs").asLong()).isEqualTo(70_000);
    }

    @Test
    void littlesLawBoundFollowsThreadsLimitsAndTheCallee() {
        // Capacity 10 at 200 ms: the callee serves 10 / (2 x 0.2 s) = 25 requests per second at most.
        assertThat(at30.values()).allSatisfy((result) -> assertThat(result.littlesLawBound()).isEqualTo(25.0));
        ServerReport report = new ServerReportWriter().read(reportDir.resolve("report.json"));
        Map<String, Double> at4 = report.server()
            .stream()
            .filter((result) -> result.concurrency() == 4)
            .collect(Collectors.toMap(ServerReport.Result::setup, ServerReport.Result::littlesLawBound));
        assertThat(at4).containsEntry("tomcat-20", 10.0).containsEntry("virtual", 10.0)
            .containsEntry("virtual-parallel", 20.0).containsEntry("virtual-inbound", 10.0);
        assertThat(report.server()).allSatisfy((result) -> assertThat(result.littlesLawEfficiency())
            .isCloseTo(result.requestsPerSecond() / result.littlesLawBound(), within(1e-9)));
    }

    @Test
    void boundedSetupsKeepTheCalleeCallsWithinTheirLimit() {
        assertThat(at30.get("tomcat-20").peakCalleeInFlight()).isBetween(1, 20);
        assertThat(at30.get("virtual-bulkhead").peakCalleeInFlight()).isBetween(1, CAPACITY);
        assertThat(at30.get("virtual-inbound").peakCalleeInFlight()).isBetween(1, CAPACITY);
        assertThat(at30.get("virtual-inbound").peakInboundWaiting()).isPositive();
        // Requests running on a virtual thread: never more than the limit, however many wait.
        assertThat(at30.get("virtual-inbound").peakInboundActive()).isBetween(1, CAPACITY);
        assertThat(at30.get("virtual").peakCalleeInFlight()).isGreaterThan(20);
        assertThat(at30.get("virtual").peakInboundWaiting()).isZero();
        // Platform threads: Tomcat's 20 workers are live threads of the front JVM; virtual threads are not.
        assertThat(at30.get("tomcat-20").peakLiveThreads()).isGreaterThan(20);
        assertThat(at30.values()).allSatisfy((result) -> {
            assertThat(result.peakHeapUsedBytes()).isPositive();
            assertThat(result.meanMachineCpu()).isPositive().isLessThanOrEqualTo(1.0);
        });
    }

    @Test
    void reportSaysWhetherTheInboundQueueHoldsTheLoadAndCountsThe503s() {
        ServerReport report = new ServerReportWriter().read(reportDir.resolve("report.json"));
        for (ServerReport.Result result : report.server()) {
            if (result.setup().startsWith("virtual-inbound")) {
                assertThat(result.inboundLimit()).isEqualTo(CAPACITY);
            }
            else {
                assertThat(result.inboundLimit()).isNull();
                assertThat(result.inboundQueueCapacity()).isNull();
                assertThat(result.inboundQueueHoldsLoad()).isNull();
                assertThat(result.inboundRejected()).isZero();
            }
        }
        ServerReport.Result inbound = at30.get("virtual-inbound");
        assertThat(inbound.inboundQueueCapacity()).isEqualTo(10_000);
        assertThat(inbound.inboundQueueHoldsLoad()).isTrue();
        assertThat(inbound.inboundRejected()).isZero();
        ServerReport.Result shed = at30.get("virtual-inbound-shed");
        assertThat(shed.inboundQueueCapacity()).isEqualTo(CAPACITY);
        assertThat(shed.inboundQueueHoldsLoad()).isFalse();
        // 30 requests at once find 10 permits and 10 places in the queue: at least 10 get 503, which ab saw too.
        assertThat(shed.inboundRejected()).isGreaterThanOrEqualTo(10).isEqualTo(shed.non2xx());
        assertThat(shed.peakInboundWaiting()).isBetween(1, CAPACITY);
        assertThat(shed.peakCalleeInFlight()).isBetween(1, CAPACITY);
        assertThat(report.server()).filteredOn((result) -> result.setup().equals("virtual-inbound-shed")
                && result.concurrency() == 4)
            .singleElement()
            .satisfies((at4) -> {
                assertThat(at4.inboundQueueHoldsLoad()).isTrue();
                assertThat(at4.inboundRejected()).isZero();
            });
    }

    @Test
    void timelinesCoverEveryRun() {
        assertThat(json.get("timelines")).hasSize(14);
        for (JsonNode timeline : json.get("timelines")) {
            assertThat(timeline.get("points").size()).as("samples of %s", timeline.get("setup")).isGreaterThan(3);
        }
    }

    @Test
    void markdownListsEverySetup() throws Exception {
        String md = Files.readString(reportDir.resolve("report.md"));
        assertThat(md).contains("| tomcat-20 | 30 |", "| virtual-inbound | 30 |", "Little's-law bound",
                "| 10 + 10000 >= 30: sheds nothing | 0 |", "| 10 + 10 < 30: sheds the rest with 503 | "
                        + at30.get("virtual-inbound-shed").inboundRejected() + " |");
    }

    @Test
    void htmlShowsTheTableAndDrawsTheChartsInChromium() {
        try (Chromium chromium = Chromium.start(reportDir.resolve("chromium-profile"))) {
            ChromeDriver driver = chromium.driver();
            driver.get(reportDir.resolve("report.html").toUri().toString());
            List<WebElement> rows = driver.findElements(By.cssSelector("#server tbody tr"));
            assertThat(rows).hasSize(14);
            WebElement virtual = driver.findElement(By.cssSelector("#server tr[data-setup='virtual'][data-concurrency='30']"));
            List<WebElement> cells = virtual.findElements(By.tagName("td"));
            assertThat(cells.get(0).getText()).isEqualTo("virtual");
            assertThat(cells.get(3).getText()).isEqualTo("25.0");
            assertThat(cells.get(14).getText()).isEqualTo(Integer.toString(at30.get("virtual").peakCalleeInFlight()));
            // One chart per measure and level, one line per setup that has samples.
            assertThat(driver.findElements(By.cssSelector("#charts svg"))).hasSize(10);
            assertThat(driver.findElements(
                    By.cssSelector("#charts svg[data-measure='calleeInFlight'][data-concurrency='30'] path")))
                .hasSize(7);
            assertThat(driver.findElements(By.cssSelector("#legend .legend-item"))).hasSize(7);
        }
    }

    @Test
    void missingAbSaysWhichPackageToInstall() {
        ApacheBench missing = new ApacheBench(reportDir.resolve("no-such-ab").toString());
        assertThatException()
            .isThrownBy(missing::version)
            .withMessageContaining("apt-get install apache2-utils")
            .withMessageContaining("--loom.sample.server.ab");
    }
}
