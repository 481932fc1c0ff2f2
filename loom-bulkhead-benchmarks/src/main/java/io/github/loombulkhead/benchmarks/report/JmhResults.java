package io.github.loombulkhead.benchmarks.report;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reads a JMH result file written with {@code -rf json}. */
public final class JmhResults {

    private final List<JmhRow> rows;

    private JmhResults(List<JmhRow> rows) {
        this.rows = List.copyOf(rows);
    }

    /** Results made of {@code rows}, for tests of the report. */
    static JmhResults of(List<JmhRow> rows) {
        return new JmhResults(rows);
    }

    /** Parses the files, in order, into one set of results; a missing file reads as no results. */
    public static JmhResults read(File... files) {
        List<JmhRow> rows = new ArrayList<>();
        for (File json : files) {
            if (json.isFile()) {
                readInto(json, rows);
            }
        }
        return new JmhResults(rows);
    }

    private static void readInto(File json, List<JmhRow> rows) {
        for (JsonNode entry : JsonMapper.shared().readTree(json)) {
            String benchmark = entry.path("benchmark").asString();
            int dot = benchmark.lastIndexOf('.');
            String className = benchmark.substring(benchmark.lastIndexOf('.', dot - 1) + 1, dot);
            Map<String, String> params = new LinkedHashMap<>();
            for (Map.Entry<String, JsonNode> param : entry.path("params").properties()) {
                params.put(param.getKey(), param.getValue().asString());
            }
            JsonNode metric = entry.path("primaryMetric");
            JsonNode percentiles = metric.path("scorePercentiles");
            rows.add(new JmhRow(className, benchmark.substring(dot + 1), entry.path("mode").asString(), params,
                    metric.path("score").asDouble(), number(metric.path("scoreError")), metric.path("scoreUnit").asString(),
                    percentiles.path("50.0").asDouble(Double.NaN), percentiles.path("99.0").asDouble(Double.NaN)));
        }
    }

    /** JMH writes "NaN" as a string when a single iteration gives no error estimate. */
    private static double number(JsonNode node) {
        return node.isNumber() ? node.asDouble() : Double.NaN;
    }

    public List<JmhRow> rows() {
        return this.rows;
    }

    /** The result of {@code benchmarkClass.method} whose params include all of {@code params}. */
    public Optional<JmhRow> find(String benchmarkClass, String method, Map<String, String> params) {
        return this.rows.stream()
            .filter((row) -> row.benchmarkClass().equals(benchmarkClass) && row.method().equals(method))
            .filter((row) -> params.entrySet().stream().allMatch((p) -> p.getValue().equals(row.param(p.getKey()))))
            .findFirst();
    }

    /** Distinct values of one param for one benchmark class, in file order. */
    public List<String> paramValues(String benchmarkClass, String param) {
        return this.rows.stream()
            .filter((row) -> row.benchmarkClass().equals(benchmarkClass) && row.param(param) != null)
            .map((row) -> row.param(param))
            .distinct()
            .toList();
    }
}
