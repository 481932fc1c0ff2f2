package io.github.loombulkhead.autoconfigure.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The alerting rules of {@code docs/prometheus} through Prometheus's own {@code promtool}: they load, each alert fires
 * on the series that should raise it only after its {@code for} and not on the series beside them
 * ({@code loom-bulkhead-alerts-test.yml}), and they name only series the dashboard's test found in a real scrape.
 */
class AlertRulesTest {

    private static final Path DIRECTORY = Path.of("../docs/prometheus");

    private static final Pattern SERIES = Pattern.compile("loom_bulkhead_[a-z_]+");

    @Test
    void theRulesLoad() throws Exception {
        assertThat(promtool("check", "rules", "loom-bulkhead-alerts.yml"))
            .contains("SUCCESS: 6 rules found");
    }

    @Test
    void eachAlertFiresOnlyWhereItShould() throws Exception {
        assertThat(promtool("test", "rules", "loom-bulkhead-alerts-test.yml")).contains("SUCCESS");
    }

    @Test
    void theRulesNameOnlySeriesTheDashboardIsCheckedWith() throws IOException {
        Set<String> rules = new TreeSet<>();
        for (String expr : expressions(Files.readString(DIRECTORY.resolve("loom-bulkhead-alerts.yml")))) {
            rules.addAll(series(expr));
        }
        Set<String> dashboard = series(Files.readString(Path.of("../docs/grafana/loom-bulkhead.json")));
        assertThat(rules).hasSize(9).isSubsetOf(dashboard);
    }

    @SuppressWarnings("unchecked")
    private static List<String> expressions(String rules) {
        Map<String, Object> document = new Yaml().load(rules);
        List<String> expressions = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) document.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                expressions.add((String) rule.get("expr"));
            }
        }
        return expressions;
    }

    private static Set<String> series(String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = SERIES.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }

    /** Runs promtool in the rules' directory and returns its output; fails with the output when it fails. */
    private static String promtool(String... arguments) throws IOException, InterruptedException {
        String[] command = new String[arguments.length + 1];
        command[0] = "promtool";
        System.arraycopy(arguments, 0, command, 1, arguments.length);
        Process process;
        try {
            process = new ProcessBuilder(command).directory(DIRECTORY.toFile()).redirectErrorStream(true).start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("cannot start promtool (install the Debian package 'prometheus'): "
                    + ex.getMessage(), ex);
        }
        try {
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("promtool finished").isTrue();
            assertThat(process.exitValue()).as(output).isZero();
            return output;
        }
        finally {
            process.destroyForcibly();
        }
    }
}
