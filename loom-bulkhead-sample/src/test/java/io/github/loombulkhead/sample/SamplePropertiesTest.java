package io.github.loombulkhead.sample;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** {@code loom.sample.*} binding: presets, explicit values winning over them, and bad values named. */
class SamplePropertiesTest {

    @Test
    void defaultScaleIsTheReferenceScaledDownKeepingItsRatios() {
        Scenario scenario = Scenario.from(bind(Map.of()));
        assertThat(scenario).isEqualTo(new Scenario(Scale.DEFAULT, 1_000, 100, 200, Duration.ofMillis(300),
                Duration.ofMillis(500), Duration.ofMillis(500), Mode.defaults(), 1_000, List.of()));
        assertThat(scenario.littlesLawBound()).isEqualTo(Duration.ofMillis(1_500));
        assertThat(scenario.readTimeout()).isLessThan(scenario.calleeLatency().multipliedBy(2));
    }

    @Test
    void referenceScaleHasTheReferencesNumbers() {
        Scenario scenario = Scenario.from(bind(Map.of("loom.sample.scale", "reference")));
        assertThat(scenario.requests()).isEqualTo(1_000);
        assertThat(scenario.limit()).isEqualTo(100);
        assertThat(scenario.calleeCapacity()).isEqualTo(200);
        assertThat(scenario.calleeLatency()).isEqualTo(Duration.ofSeconds(3));
        assertThat(scenario.readTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(scenario.connectTimeout()).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void explicitValuesWinOverThePreset() {
        SampleProperties properties = bind(Map.of("loom.sample.scale", "reference", "loom.sample.requests", "2000",
                "loom.sample.callee.latency", "1s", "loom.sample.modes", "loom-bulkhead,thread-pool",
                "loom.sample.run", "compare"));
        Scenario scenario = Scenario.from(properties);
        assertThat(properties.isCompare()).isTrue();
        assertThat(scenario.requests()).isEqualTo(2_000);
        assertThat(scenario.calleeLatency()).isEqualTo(Duration.ofSeconds(1));
        assertThat(scenario.readTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(scenario.modes()).containsExactly(Mode.LOOM_BULKHEAD, Mode.THREAD_POOL);
    }

    @Test
    void capacityChangesAndTheAdaptiveCeilingAreBound() {
        Scenario scenario = Scenario.from(bind(Map.of("loom.sample.callee.capacity-changes", "60@2s, 200@6500ms",
                "loom.sample.adaptive.max-limit", "400")));
        assertThat(scenario.capacityChanges()).containsExactly(new CapacityChange(60, 2_000),
                new CapacityChange(200, 6_500));
        assertThat(scenario.adaptiveMaxLimit()).isEqualTo(400);
        assertThat(scenario.limit()).as("the static modes' limit is unchanged").isEqualTo(100);
        // 200 workers for 2 s serve 1,333 requests: the 1,000 are done before the first change.
        assertThat(scenario.littlesLawBound()).isEqualTo(Duration.ofMillis(1_500));
    }

    @Test
    void modeDeadlineLeavesRoomForEveryWaveToTimeOutTwice() {
        Scenario reference = Scenario.from(bind(Map.of("loom.sample.scale", "reference")));
        // 10 waves of (3 s + 5 s + 0.5 s), twice, plus 10 s.
        assertThat(reference.modeDeadline()).isEqualTo(Duration.ofSeconds(180));
        assertThat(Scenario.from(bind(Map.of())).modeDeadline()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void modeDeadlineCountsEachModeAtTheLimitItKeepsTo() {
        Map<String, String> reference = Map.of("loom.sample.scale", "reference", "loom.sample.adaptive.max-limit",
                "10");
        // The adaptive modes keep to their max limit, not to loom.sample.limit: 100 waves of 10, 8.5 s each, twice,
        // plus 10 s.
        assertThat(deadline(reference, "netflix-aimd,loom-bulkhead-adaptive")).isEqualTo(Duration.ofSeconds(1_710));
        assertThat(deadline(reference, "loom-bulkhead,netflix-vegas")).as("the slowest mode's")
            .isEqualTo(Duration.ofSeconds(1_710));
        assertThat(deadline(reference, "loom-bulkhead")).as("10 waves of the static limit 100")
            .isEqualTo(Duration.ofSeconds(180));
        // A max limit above the static limit: counted at the static limit, as an adaptive limit may stay below it.
        Map<String, String> highCeiling = Map.of("loom.sample.scale", "reference");
        assertThat(deadline(highCeiling, "loom-bulkhead-adaptive")).isEqualTo(Duration.ofSeconds(180));
        // Without a limit: 5 waves of the callee's 200 workers.
        assertThat(deadline(highCeiling, "virtual-unbounded")).isEqualTo(Duration.ofSeconds(95));
    }

    @Test
    void replicasDefaultToOneProcessAndTheClusterModeRunsOnlyWhenNamed() {
        SampleProperties single = bind(Map.of("loom.sample.run", "compare"));
        assertThat(single.replicas()).isEqualTo(1);
        assertThat(single.isReplicated()).isFalse();
        assertThat(Scenario.from(single).modes()).doesNotContain(Mode.LOOM_BULKHEAD_CLUSTER);
        SampleProperties coordinator = bind(Map.of("loom.sample.run", "compare", "loom.sample.replicas", "3",
                "loom.sample.modes", "loom-bulkhead,loom-bulkhead-cluster"));
        assertThat(coordinator.isReplicated()).isTrue();
        assertThat(coordinator.isReplica()).isFalse();
        assertThat(Scenario.from(coordinator).modes()).containsExactly(Mode.LOOM_BULKHEAD, Mode.LOOM_BULKHEAD_CLUSTER);
        SampleProperties replica = bind(Map.of("loom.sample.run", "compare", "loom.sample.replicas", "3",
                "loom.sample.replica.index", "2"));
        assertThat(replica.isReplicated()).as("a replica runs its modes itself").isFalse();
        assertThat(replica.isReplica()).isTrue();
        assertThat(replica.replica().redisServer()).isEqualTo("redis-server");
    }

    @Test
    void replicasAboveThePresetsRequestsAreRejected() {
        assertRejected(Map.of("loom.sample.run", "compare", "loom.sample.replicas", "1001"),
                "loom.sample.requests (1000, the preset of loom.sample.scale=default) must be at least "
                        + "loom.sample.replicas (1001), so that every replica has a request; set loom.sample.requests "
                        + "to at least 1001 or run fewer replicas");
        assertThat(bind(Map.of("loom.sample.run", "compare", "loom.sample.replicas", "1000")).replicas())
            .as("one request each").isEqualTo(1_000);
    }

    @Test
    void badValuesAreRejectedByName() {
        assertRejected(Map.of("loom.sample.replicas", "0"), "loom.sample.replicas must be at least 1, but was 0");
        assertRejected(Map.of("loom.sample.replicas", "3", "loom.sample.requests", "2"),
                "loom.sample.requests (2) must be at least loom.sample.replicas (3)");
        assertRejected(Map.of("loom.sample.replica.redis-server", " "), "loom.sample.replica.redis-server must name");
        assertRejected(Map.of("loom.sample.replica.mode-deadline", "0s"),
                "loom.sample.replica.mode-deadline must be a positive duration such as 500ms, but was PT0S");
        assertRejected(Map.of("loom.sample.limit", "-1"), "loom.sample.limit must be at least 1, but was -1");
        assertRejected(Map.of("loom.sample.requests", "0"), "loom.sample.requests must be at least 1, but was 0");
        assertRejected(Map.of("loom.sample.callee.capacity", "0"), "loom.sample.callee.capacity must be at least 1");
        assertRejected(Map.of("loom.sample.read-timeout", "0s"), "loom.sample.read-timeout must be a positive duration");
        assertRejected(Map.of("loom.sample.callee.latency", "-1s"), "loom.sample.callee.latency must not be negative");
        assertRejected(Map.of("loom.sample.callee.port", "70000"), "loom.sample.callee.port must be between 0");
        assertRejected(Map.of("loom.sample.modes", "thread-pool,thread-pool"), "names 'thread-pool' twice");
        assertRejected(Map.of("loom.sample.modes", "fast"), "unknown mode 'fast'; valid modes: thread-pool,");
        assertRejected(Map.of("loom.sample.run", "benchmark"), "loom.sample.run must be 'compare'");
        assertRejected(Map.of("loom.sample.callee.url", "localhost"), "loom.sample.callee.url must be an absolute");
        assertRejected(Map.of("loom.sample.adaptive.max-limit", "0"),
                "loom.sample.adaptive.max-limit must be at least 1, but was 0");
        assertRejected(Map.of("loom.sample.callee.capacity-changes", "60 at 2s"),
                "loom.sample.callee.capacity-changes must be a comma-separated list of capacity@time such as "
                        + "60@2s,200@6s, but '60 at 2s' in '60 at 2s' is not");
    }

    private static void assertRejected(Map<String, String> values, String message) {
        assertThatExceptionOfType(BindException.class).isThrownBy(() -> bind(values))
            .havingRootCause()
            .isInstanceOf(SampleArgumentException.class)
            .withMessageContaining(message);
    }

    private static Duration deadline(Map<String, String> values, String modes) {
        Map<String, String> withModes = new HashMap<>(values);
        withModes.put("loom.sample.modes", modes);
        return Scenario.from(bind(withModes)).modeDeadline();
    }

    private static SampleProperties bind(Map<String, String> values) {
        return new Binder(new MapConfigurationPropertySource(values)).bindOrCreate("loom.sample",
                SampleProperties.class);
    }
}
