package io.github.loombulkhead.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.loombulkhead.benchmarks.adaptive.AdaptiveResults;
import io.github.loombulkhead.benchmarks.adaptive.BurstResult;
import io.github.loombulkhead.benchmarks.adaptive.Contender;
import io.github.loombulkhead.benchmarks.fairness.FairnessResult;
import io.github.loombulkhead.benchmarks.fairness.FairnessUnderOverload;
import io.github.loombulkhead.benchmarks.http.HttpPairedResult;
import io.github.loombulkhead.benchmarks.memory.MemoryResult;
import io.github.loombulkhead.benchmarks.memory.WaitingTaskMemory;
import io.github.loombulkhead.benchmarks.report.JmhResults;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Runs the whole suite once, tiny and in this JVM (JMH without forks, harnesses in-process), and checks that
 * every benchmark and mode produced a result and that the report shows each of them.
 */
class BenchmarkSuiteSmokeTest {

    private static final Path OUT = Path.of("target", "smoke-results");

    private static String markdown;

    @BeforeAll
    static void runSuite() throws Exception {
        markdown = BenchmarkSuite.run(SuiteSettings.smoke(), Set.copyOf(BenchmarkSuite.PARTS), OUT, "smoke test");
    }

    @Test
    void docsWithOnlySomePartsIsRefusedBeforeAnythingRuns(@TempDir Path docsDir) throws Exception {
        Path docs = docsDir.resolve("benchmarks.md");
        Files.writeString(docs, "kept");
        assertThatIllegalArgumentException()
            .isThrownBy(() -> BenchmarkSuite.main(new String[] { "--only=adaptive", "--docs=" + docs }))
            .withMessageContaining("--docs replaces the whole results section")
            .withMessageContaining("run every part with --docs");
        assertThat(Files.readString(docs)).isEqualTo("kept");
    }

    @Test
    void everyJmhBenchmarkProducedAScore() {
        JmhResults results = JmhResults.read(OUT.resolve("jmh-burst-result.json").toFile(),
                OUT.resolve("jmh-result.json").toFile());
        List<String> burst = List.of("semaphoreBaseline", "loomBulkhead", "springSimpleAsync", "resilience4jBulkhead",
                "threadPool", "referenceVirtualLoops", "referencePlatformLoops");
        for (String work : List.of("cpu", "park")) {
            for (String method : burst) {
                assertThat(results.find("BurstThroughputBenchmark", method, Map.of("work", work, "tasks", "500")))
                    .as("burst %s %s", method, work)
                    .hasValueSatisfying((row) -> assertThat(row.score()).isPositive());
            }
        }
        List<String> overhead = List.of("semaphoreBaseline", "loomTryAcquireRelease", "loomTryAcquireOnComplete",
                "loomTimedTryAcquireOnComplete", "loomTimedAcquireOnComplete", "nanoTimePair", "loomAnnotation",
                "loomHttpInterceptor", "resilience4jTryAcquireOnComplete", "resilience4jDecorated",
                "springConcurrencyLimit", "springProxyOnly");
        for (String method : overhead) {
            assertThat(results.find("UncontendedOverheadBenchmark", method, Map.of())).as(method)
                .hasValueSatisfying((row) -> assertThat(row.score()).isPositive());
        }
        for (String method : List.of("plain", "noopInterceptor", "semaphoreInterceptor", "loomPerClient", "loomPerHost")) {
            assertThat(results.find("HttpPathBenchmark", method, Map.of())).as(method)
                .hasValueSatisfying((row) -> assertThat(row.p50()).isPositive());
        }
        assertThat(results.rows()).hasSize(2 * burst.size() + overhead.size() + 5);
    }

    @Test
    void everyHttpClientWasMeasuredInEveryInterleavedRound() throws Exception {
        List<HttpPairedResult> http = JsonMapper.shared()
            .readValue(OUT.resolve("http-paired.json").toFile(), new TypeReference<List<HttpPairedResult>>() {
            });
        assertThat(http).extracting(HttpPairedResult::client)
            .containsExactly("plain", "noopInterceptor", "semaphoreInterceptor", "loomPerClient", "loomPerHost");
        assertThat(http).allSatisfy((result) -> {
            assertThat(result.rounds()).isEqualTo(2);
            assertThat(result.samples()).isEqualTo(2L * 200);
            assertThat(result.p50Micros()).isPositive().isLessThanOrEqualTo(result.p99Micros());
        });
        assertThat(http.get(0).addedP50()).isZero();
    }

    @Test
    void everyMemoryAlternativeQueuedAndThenRanEveryTask() throws Exception {
        List<MemoryResult> memory = JsonMapper.shared()
            .readValue(OUT.resolve("memory.json").toFile(), new TypeReference<List<MemoryResult>>() {
            });
        assertThat(memory).extracting(MemoryResult::mode)
            .containsExactlyInAnyOrder(names(WaitingTaskMemory.Mode.values()));
        assertThat(memory).allSatisfy((result) -> {
            assertThat(result.waitingTasks()).isEqualTo(2_000);
            assertThat(result.completedTasks()).isEqualTo(2_000);
        });
        double loom = bytesPerTask(memory, "loomBulkhead");
        double parkedVirtualThread = bytesPerTask(memory, "semaphoreVirtualThreads");
        assertThat(loom).isPositive().isLessThan(parkedVirtualThread / 2);
    }

    @Test
    void everyFairnessAlternativeGrantedPermitsWithoutRejection() throws Exception {
        List<FairnessResult> fairness = JsonMapper.shared()
            .readValue(OUT.resolve("fairness.json").toFile(), new TypeReference<List<FairnessResult>>() {
            });
        assertThat(fairness).extracting(FairnessResult::mode)
            .containsExactlyInAnyOrder(names(FairnessUnderOverload.Mode.values()));
        assertThat(fairness).allSatisfy((result) -> {
            assertThat(result.samples()).isPositive();
            assertThat(result.rejected()).isZero();
            assertThat(result.p50Millis()).isLessThanOrEqualTo(result.p99Millis());
            assertThat(result.p99Millis()).isLessThanOrEqualTo(result.maxMillis());
        });
    }

    @Test
    void everyAdaptiveAlgorithmRanEveryScenario() throws Exception {
        AdaptiveResults adaptive = JsonMapper.shared().readValue(OUT.resolve("adaptive.json").toFile(),
                AdaptiveResults.class);
        assertThat(adaptive.scenarios()).hasSize(7 * Contender.values().length);
        List<String> perScenario = new ArrayList<>(
                Arrays.stream(Contender.values()).map(Contender::label).toList());
        perScenario.add("told the capacity (reference)");
        List<String> expected = new ArrayList<>();
        for (int scenario = 0; scenario < 3; scenario++) {
            expected.addAll(perScenario);
        }
        // The third burst changes the capacity: the reference told of it late follows.
        expected.add("told the capacity 300 ms late (reference)");
        // Then the two bursts during which the caller pauses.
        for (int scenario = 0; scenario < 2; scenario++) {
            expected.addAll(perScenario);
        }
        assertThat(adaptive.bursts()).extracting(BurstResult::contender).containsExactlyElementsOf(expected);
        assertThat(adaptive.bursts()).extracting(BurstResult::scenario)
            .filteredOn((scenario) -> scenario.contains("the caller paused"))
            .hasSize(2 * perScenario.size());
    }

    @Test
    void reportHasEveryTableWithTheBaselineAtOne() throws Exception {
        assertThat(Files.readString(OUT.resolve("benchmarks.md"))).isEqualTo(markdown);
        assertThat(markdown).contains("### Burst throughput: 500 tasks, limit 100, work = 1 ms park")
            .contains("### Burst throughput: 500 tasks, limit 100, work = `Blackhole.consumeCPU(1000)`")
            .contains("### Uncontended overhead")
            .contains("### HTTP path: one loopback")
            .contains("### HTTP path, interleaved: 2 rounds × 200 calls")
            .contains("### Memory per waiting task: 2,000 tasks")
            .contains("### Fairness under overload")
            .contains("**loom-bulkhead** `BoundedVirtualExecutor` (fair)")
            .contains("**loom** `@Bulkhead` method (Spring proxy)")
            .contains("**loom** `BulkheadClientHttpRequestInterceptor.perHost`")
            .contains("### Adaptive limits: every algorithm against a queueing callee (simulation)")
            .contains("| 2× load | **loom `gradient`** |");
        List<String> baselineRows = markdown.lines().filter((line) -> line.contains("**(baseline)**")).toList();
        assertThat(baselineRows).hasSize(2 + 1 + 1 + 1 + 1 + 1);
        assertThat(baselineRows).allSatisfy((line) -> assertThat(line).contains("| 1.00× |"));
    }

    private static double bytesPerTask(List<MemoryResult> memory, String mode) {
        return memory.stream().filter((r) -> r.mode().equals(mode)).findFirst().orElseThrow().bytesPerTask();
    }

    private static String[] names(Enum<?>[] values) {
        return Arrays.stream(values).map(Enum::name).toArray(String[]::new);
    }
}
