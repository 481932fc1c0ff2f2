package io.github.loombulkhead.autoconfigure.metrics;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.annotation.Bulkhead;
import io.github.loombulkhead.redis.RedisServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.micrometer.metrics.test.autoconfigure.AutoConfigureMetrics;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The Grafana dashboard of {@code docs/grafana} against a real Prometheus that scrapes a running application (a
 * static, an adaptive, a cluster and the server bulkhead; a real {@code redis-server}): every query of every panel is
 * valid PromQL, names series the application exports, and gives finite values for every bulkhead it concerns, while
 * calls run, wait and are refused. The alerting rules of {@code docs/prometheus} evaluate on the same series.
 */
@SpringBootTest(classes = GrafanaDashboardTest.TestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "spring.threads.virtual.enabled=true", "management.endpoints.web.exposure.include=prometheus",
                "loom.bulkhead.instances.guarded.max-concurrent-calls=2",
                "loom.bulkhead.instances.guarded.max-wait-duration=0",
                "loom.bulkhead.instances.callee.max-concurrent-calls=50",
                "loom.bulkhead.instances.callee.adaptive.enabled=true", "loom.bulkhead.server.enabled=true",
                "loom.bulkhead.instances.shared.max-concurrent-calls=4",
                "loom.bulkhead.instances.shared.cluster.enabled=true", "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.timeout=500ms" })
@AutoConfigureMetrics
class GrafanaDashboardTest {

    private static final Path DASHBOARD = Path.of("../docs/grafana/loom-bulkhead.json");

    private static final Path ALERTS = Path.of("../docs/prometheus/loom-bulkhead-alerts.yml");

    private static final Path METRICS_PAGE = Path.of("../docs/metrics.md");

    private static RedisServer redis;

    @Autowired
    private Calls calls;

    @Autowired
    private BulkheadRegistry registry;

    @LocalServerPort
    private int port;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry properties) {
        redis = RedisServer.start();
        properties.add("spring.data.redis.port", redis::port);
        properties.add("loom.bulkhead.cluster.key-prefix", () -> "dashboard-" + UUID.randomUUID());
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.stop();
        }
    }

    @Test
    void everyQueryGivesFiniteSeriesFromARealScrape(@TempDir Path directory) throws Exception {
        String dashboard = Files.readString(DASHBOARD);
        List<Map<String, Object>> panels = JsonPath.read(dashboard, "$.panels[?(@.targets)]");
        assertThat(panels).hasSize(14);
        try (Load load = new Load(this.calls);
                PrometheusServer prometheus = PrometheusServer.start(directory, this.port, "/actuator/prometheus",
                        ALERTS)) {
            // Rates need two scrapes that saw calls: wait for three scrapes, the refusals among them.
            String refused = "loom_bulkhead_calls_total{name=\"guarded\",outcome=\"rejected\",reason=\"queue-full\"}";
            String scrapes = "count_over_time(" + refused + "[1m]) and increase(" + refused + "[1m]) > 0";
            await().atMost(Duration.ofSeconds(60))
                .until(() -> values(prometheus.query(scrapes)), (values) -> !values.isEmpty() && values.getFirst() >= 3);
            List<String> names = this.registry.getAllBulkheads()
                .stream()
                .map(io.github.loombulkhead.Bulkhead::getName)
                .sorted()
                .toList();
            assertThat(names).containsExactly("callee", "guarded", "server", "shared");
            assertThat(JsonPath.<List<String>>read(dashboard, "$.templating.list[*].query"))
                .containsExactly("prometheus", "label_values(loom_bulkhead_limit_calls, job)",
                        "label_values(loom_bulkhead_limit_calls{job=~\"$job\"}, name)");
            assertThat(JsonPath.<List<String>>read(prometheus.labelValues("job", "loom_bulkhead_limit_calls"), "$.data"))
                .containsExactly("app");
            assertThat(JsonPath.<List<String>>read(
                    prometheus.labelValues("name", "loom_bulkhead_limit_calls{job=~\"app\"}"), "$.data"))
                .containsExactlyElementsOf(names);
            for (Map<String, Object> panel : panels) {
                for (String expr : JsonPath.<List<String>>read(panel, "$.targets[*].expr")) {
                    String promql = promql(expr);
                    String body = prometheus.query(promql);
                    String what = panel.get("title") + ": " + promql + " -> " + body;
                    assertThat(JsonPath.<String>read(body, "$.status")).as(what).isEqualTo("success");
                    assertThat(values(body)).as(what).isNotEmpty().allMatch(Double::isFinite);
                }
            }
            assertThat(series(prometheus, panels, "Limit, active and waiting", 0))
                .containsOnlyKeys(names)
                .containsEntry("guarded", 2.0)
                .containsEntry("server", (double) this.registry.bulkhead("server").getLimit());
            String adaptive = "Adaptive limit (highest and lowest process) and ceiling";
            assertThat(series(prometheus, panels, adaptive, 2)).containsExactlyEntriesOf(Map.of("callee", 50.0));
            assertThat(series(prometheus, panels, adaptive, 0)).containsOnlyKeys("callee");
            assertThat(series(prometheus, panels, adaptive, 1)).containsOnlyKeys("callee");
            assertThat(series(prometheus, panels, "Rejected share", 0).get("guarded")).isGreaterThan(0);
            assertThat(series(prometheus, panels, "Rejected share", 0)).containsEntry("callee", 0.0);
            assertThat(series(prometheus, panels, "Round trip the algorithm sees", 0)).containsOnlyKeys("callee");
            assertThat(series(prometheus, panels, "Cluster permits", 0)).containsExactlyEntriesOf(Map.of("shared", 4.0));
            assertThat(series(prometheus, panels, "Processes and fallback", 0))
                .containsExactlyEntriesOf(Map.of("shared", 1.0));
            assertThat(series(prometheus, panels, "Processes and fallback", 1))
                .containsExactlyEntriesOf(Map.of("shared", 0.0));
            assertThat(series(prometheus, panels, "Syncs with Redis", 0).get("shared")).isGreaterThan(0);
            // The page's PromQL examples: valid, each gives a series from this scrape, and every series is one bulkhead
            // of one job (a snippet grouped by name alone would merge the services sharing a Prometheus).
            List<String> examples = examples(Files.readString(METRICS_PAGE));
            assertThat(examples).hasSize(11);
            for (String example : examples) {
                String body = prometheus.query(example);
                String what = example + " -> " + body;
                assertThat(JsonPath.<String>read(body, "$.status")).as(what).isEqualTo("success");
                assertThat(values(body)).as(what).isNotEmpty().allMatch(Double::isFinite);
                assertThat(JsonPath.<List<String>>read(body, "$.data.result[*].metric.job")).as(what)
                    .hasSameSizeAs(values(body))
                    .containsOnly("app");
                assertThat(JsonPath.<List<String>>read(body, "$.data.result[*].metric.name")).as(what)
                    .hasSameSizeAs(values(body));
            }
            // The alerting rules evaluate on the same series without an error (their firing is promtool's test).
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                String rules = prometheus.rules();
                assertThat(JsonPath.<List<String>>read(rules, "$.data.groups[*].rules[*].name")).hasSize(6);
                assertThat(JsonPath.<List<String>>read(rules, "$.data.groups[*].rules[*].health")).as(rules)
                    .containsOnly("ok");
            });
        }
    }

    /** One target's values by bulkhead name. */
    private static Map<String, Double> series(PrometheusServer prometheus, List<Map<String, Object>> panels,
            String title, int target) {
        Map<String, Object> panel = panels.stream()
            .filter((candidate) -> title.equals(candidate.get("title")))
            .findFirst()
            .orElseThrow();
        String expr = JsonPath.<List<String>>read(panel, "$.targets[*].expr").get(target);
        String body = prometheus.query(promql(expr));
        List<String> names = JsonPath.read(body, "$.data.result[*].metric.name");
        List<Double> values = values(body);
        Map<String, Double> byName = new java.util.TreeMap<>();
        for (int i = 0; i < names.size(); i++) {
            byName.put(names.get(i), values.get(i));
        }
        return byName;
    }

    /**
     * The queries of the {@code promql} blocks of a page: one per line, a line that starts with a space continuing the
     * one before.
     */
    static List<String> examples(String page) {
        List<String> queries = new ArrayList<>();
        boolean inBlock = false;
        for (String line : page.split("\n")) {
            if (line.startsWith("```")) {
                inBlock = !inBlock && line.equals("```promql");
            }
            else if (inBlock && line.startsWith(" ") && !queries.isEmpty()) {
                queries.set(queries.size() - 1, queries.getLast() + " " + line.strip());
            }
            else if (inBlock && !line.isBlank()) {
                queries.add(line.strip());
            }
        }
        return queries;
    }

    /** The query as Grafana sends it with every job and bulkhead selected and a rate interval of a minute. */
    private static String promql(String expr) {
        return expr.replace("$__rate_interval", "1m").replace("$job", ".*").replace("$name", ".*");
    }

    private static List<Double> values(String body) {
        List<Double> values = new ArrayList<>();
        for (Object value : JsonPath.<List<Object>>read(body, "$.data.result[*].value[1]")) {
            values.add(Double.parseDouble(value.toString()));
        }
        return values;
    }

    /** Calls on virtual threads until closed: the guarded bulkhead refuses some, the adaptive one takes samples. */
    private static final class Load implements AutoCloseable {

        private final AtomicBoolean running = new AtomicBoolean(true);

        private final List<Thread> threads = new ArrayList<>();

        Load(Calls calls) {
            for (int i = 0; i < 4; i++) {
                this.threads.add(Thread.ofVirtual().start(() -> repeat(calls::guarded)));
            }
            for (int i = 0; i < 2; i++) {
                this.threads.add(Thread.ofVirtual().start(() -> repeat(calls::callee)));
                this.threads.add(Thread.ofVirtual().start(() -> repeat(calls::shared)));
            }
        }

        private void repeat(Runnable call) {
            while (this.running.get()) {
                try {
                    call.run();
                }
                catch (BulkheadRejectedException ex) {
                    // counted by the bulkhead: what the dashboard shows
                }
            }
        }

        @Override
        public void close() throws InterruptedException {
            this.running.set(false);
            for (Thread thread : this.threads) {
                thread.join();
            }
        }
    }

    static class Calls {

        @Bulkhead("guarded")
        public void guarded() {
            pause(5);
        }

        @Bulkhead("callee")
        public void callee() {
            pause(2);
        }

        @Bulkhead("shared")
        public void shared() {
            pause(3);
        }

        private static void pause(long millis) {
            try {
                Thread.sleep(millis);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class TestApplication {

        @Bean
        Calls calls() {
            return new Calls();
        }
    }
}
