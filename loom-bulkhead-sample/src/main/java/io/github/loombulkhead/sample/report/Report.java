package io.github.loombulkhead.sample.report;

import java.util.List;

/**
 * The whole {@code report.json}: the scenario and one run per mode, in the order they ran.
 *
 * @param scenario what was compared, and on which JVM and machine
 * @param runs one entry per mode
 */
public record Report(ScenarioReport scenario, List<RunReport> runs) {
}
