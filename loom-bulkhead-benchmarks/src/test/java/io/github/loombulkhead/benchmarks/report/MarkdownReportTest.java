package io.github.loombulkhead.benchmarks.report;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.github.loombulkhead.benchmarks.SuiteSettings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The report's derived figures: a difference with its error, the cost of a CPU body, the real fork count. */
class MarkdownReportTest {

    private static final String OVERHEAD = "UncontendedOverheadBenchmark";

    @Test
    void aDifferenceNetOfTheProxyCarriesTheCombinedErrorOrIsNotResolved() {
        JmhRow baseline = row(OVERHEAD, "semaphoreBaseline", Map.of(), 6.63, 5.41);
        JmhRow proxy = row(OVERHEAD, "springProxyOnly", Map.of(), 46.0, 61.5);
        assertThat(MarkdownReport.netOfProxy(row(OVERHEAD, "loomAnnotation", Map.of(), 133, 439), proxy, baseline))
            .isEqualTo("n/a (87.0 ± 443 ns)");
        JmhRow longProxy = row(OVERHEAD, "springProxyOnly", Map.of(), 47.0, 1.49);
        assertThat(MarkdownReport.netOfProxy(row(OVERHEAD, "loomAnnotation", Map.of(), 142, 1.47), longProxy,
                row(OVERHEAD, "semaphoreBaseline", Map.of(), 6.22, 0.005)))
            .isEqualTo("95.0 ± 2.09 ns (15.27×)");
        assertThat(MarkdownReport.netOfProxy(row(OVERHEAD, "loomAnnotation", Map.of(), 142, Double.NaN), longProxy,
                baseline))
            .startsWith("n/a");
    }

    @Test
    void theCpuBurstIsLabelledByItsBodyWithTheCostTheReferenceRowImplies() {
        Map<String, String> cpu = Map.of("work", "cpu", "tasks", "100000");
        String markdown = report(SuiteSettings.quick(), List.of(
                row("BurstThroughputBenchmark", "semaphoreBaseline", cpu, 130, 7.71),
                row("BurstThroughputBenchmark", "referenceVirtualLoops", cpu, 100, 3.16)));
        assertThat(markdown).contains("work = `Blackhole.consumeCPU(1000)`, wait for all")
            .contains("One body costs about 2.00 µs of CPU here")
            .doesNotContain("~1 µs");
    }

    @Test
    void theHttpTableStatesTheForksTheRunUsed() {
        List<JmhRow> rows = List.of(row("HttpPathBenchmark", "plain", Map.of(), 195, 8.93),
                row("HttpPathBenchmark", "semaphoreInterceptor", Map.of(), 226, 9.62));
        assertThat(report(SuiteSettings.quick(), rows)).contains("single caller, one JMH fork per row");
        assertThat(report(SuiteSettings.thorough(), rows)).contains("single caller, 3 JMH forks per row");
    }

    private static String report(SuiteSettings settings, List<JmhRow> rows) {
        SuiteEnvironment environment = new SuiteEnvironment("test", settings, Instant.EPOCH, Instant.EPOCH, "jdk", 2,
                "os", "cpu", "0", "0");
        return new MarkdownReport(environment, JmhResults.of(rows), List.of(), List.of(), List.of(), null).render();
    }

    private static JmhRow row(String bench, String method, Map<String, String> params, double score, double error) {
        return new JmhRow(bench, method, "avgt", params, score, error, "ns/op", Double.NaN, Double.NaN);
    }
}
