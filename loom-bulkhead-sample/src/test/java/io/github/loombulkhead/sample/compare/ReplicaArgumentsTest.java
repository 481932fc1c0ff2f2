package io.github.loombulkhead.sample.compare;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.github.loombulkhead.sample.SampleProperties;
import io.github.loombulkhead.sample.Scenario;
import io.github.loombulkhead.sample.client.CalleeCalls;
import io.github.loombulkhead.sample.client.CalleeEndpoint;
import io.github.loombulkhead.sample.report.ReportWriter;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.SimpleCommandLinePropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/** The command line a comparison with several replicas gives each replica, bound as the replica binds it. */
class ReplicaArgumentsTest {

    @Test
    void replicaRunsEachModeAsLongAsTheComparisonAllowsThoughItIsNotToldTheCapacityChanges() {
        SampleProperties properties = bind("--loom.sample.run=compare", "--loom.sample.scale=reference",
                "--loom.sample.replicas=3", "--loom.sample.callee.capacity-changes=20@1s",
                "--loom.sample.modes=loom-bulkhead-adaptive");
        Scenario scenario = Scenario.from(properties);
        ReplicatedComparison comparison = new ReplicatedComparison(properties, scenario,
                CalleeEndpoint.external(URI.create("http://localhost:8081")), mock(CalleeCalls.class),
                mock(ModeRunner.class), new ReportWriter(), System.out, List.of(), false);
        Scenario replica = Scenario.from(bind(comparison.arguments(0, 3, Path.of("gate"), List.of())
            .toArray(String[]::new)));
        assertThat(replica.requests()).isEqualTo(334);
        assertThat(replica.capacityChanges()).as("only the comparison posts the schedule").isEmpty();
        // 200 workers until 4 s (one latency after the drop) serve 266.7 requests, the other 733.3 take 20 workers
        // 110 s.
        assertThat(scenario.littlesLawBound()).isEqualTo(Duration.ofSeconds(114));
        // 50 waves of 20 (the fewest workers, under the adaptive max limit of 1,000), 8.5 s each, twice, plus 10 s.
        assertThat(scenario.modeDeadline()).isEqualTo(Duration.ofSeconds(860));
        assertThat(replica.modeDeadline()).isEqualTo(Duration.ofSeconds(860))
            .isGreaterThanOrEqualTo(scenario.littlesLawBound());
    }

    @Test
    void replicaWaitsForEachModeToStartAsLongAsTheComparisonMayTakeToStartIt() {
        SampleProperties properties = bind("--loom.sample.run=compare", "--loom.sample.replicas=2",
                "--loom.sample.replica.startup-timeout=300s", "--loom.sample.modes=thread-pool,loom-bulkhead");
        Scenario scenario = Scenario.from(properties);
        ReplicatedComparison comparison = new ReplicatedComparison(properties, scenario,
                CalleeEndpoint.external(URI.create("http://localhost:8081")), mock(CalleeCalls.class),
                mock(ModeRunner.class), new ReportWriter(), System.out, List.of(), false);
        SampleProperties replica = bind(comparison.arguments(1, 2, Path.of("gate"), List.of()).toArray(String[]::new));
        assertThat(replica.replica().startupTimeout()).isEqualTo(Duration.ofSeconds(300));
        Duration deadline = Scenario.from(replica).modeDeadline();
        // 1,000 requests in waves of 100, 1.3 s each, twice, plus 10 s: below the minute every mode has at least.
        assertThat(deadline).isEqualTo(scenario.modeDeadline()).isEqualTo(Duration.ofMinutes(1));
        Duration startupTimeout = properties.replica().startupTimeout();
        // The first mode starts once every replica has started: the comparison waits 2 × 60 s + 300 s for them.
        assertThat(ReplicaGate.readyWait(deadline, startupTimeout, true)).isEqualTo(Duration.ofSeconds(420));
        assertThat(ReplicaGate.openWait(deadline, replica.replica().startupTimeout(), true))
            .isEqualTo(Duration.ofSeconds(420));
        // A later one once every replica ended the previous mode (2 × 60 s), the callee is idle (60 s) and every
        // replica is ready (2 × 60 s).
        assertThat(ReplicaGate.readyWait(deadline, startupTimeout, false)).isEqualTo(Duration.ofSeconds(120));
        assertThat(ReplicaGate.openWait(deadline, replica.replica().startupTimeout(), false))
            .isEqualTo(Duration.ofSeconds(300));
    }

    private static SampleProperties bind(String... arguments) {
        return new Binder(ConfigurationPropertySources.from(new SimpleCommandLinePropertySource(arguments)))
            .bindOrCreate("loom.sample", SampleProperties.class);
    }
}
