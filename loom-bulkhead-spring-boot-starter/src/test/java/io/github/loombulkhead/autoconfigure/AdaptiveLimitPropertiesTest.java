package io.github.loombulkhead.autoconfigure;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;

import com.jayway.jsonpath.JsonPath;
import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.AdaptiveLimitConfig.Algorithm;
import io.github.loombulkhead.limit.DropClassifier;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.client.HttpServerErrorException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

/** Binding of {@code loom.bulkhead.*.adaptive.*} to the adaptive limit and drop classifier of each bulkhead. */
class AdaptiveLimitPropertiesTest {

    private static final Path METADATA = Path.of("target/classes/META-INF/spring-configuration-metadata.json");

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true");

    @Test
    void staticByDefault() {
        this.contextRunner.run((context) -> {
            BulkheadConfig config = context.getBean(BulkheadRegistry.class).resolveConfig("anything");
            assertThat(config.isAdaptive()).isFalse();
            assertThat(config.getAdaptive()).isNull();
            assertThat(config.getDropClassifier()).isSameAs(DropClassifier.ofDefaults());
            assertThat(context.getBean(BulkheadRegistry.class).bulkhead("anything").isAdaptive()).isFalse();
        });
    }

    @Test
    void theSwitchAloneGivesTheCoreDefaultsBelowTheCeiling() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.defaults.adaptive.enabled=true",
                    "loom.bulkhead.instances.callee.max-concurrent-calls=400")
            .run((context) -> {
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                AdaptiveLimitConfig adaptive = registry.resolveConfig("callee").getAdaptive();
                AdaptiveLimitConfig core = AdaptiveLimitConfig.ofDefaults();
                assertThat(adaptive.getAlgorithm()).isEqualTo(core.getAlgorithm()).isEqualTo(Algorithm.GRADIENT);
                assertThat(adaptive.getInitialLimit()).isEqualTo(core.getInitialLimit());
                assertThat(adaptive.getMinLimit()).isEqualTo(core.getMinLimit());
                assertThat(adaptive.getMaxLimit()).isEqualTo(400);
                assertThat(adaptive.getRttTolerance()).isEqualTo(core.getRttTolerance());
                assertThat(adaptive.getIncreaseRatio()).isEqualTo(core.getIncreaseRatio());
                assertThat(adaptive.getWindowSamples()).isEqualTo(core.getWindowSamples());
                assertThat(adaptive.getDropBackoff()).isEqualTo(core.getDropBackoff());
                assertThat(adaptive.getDropTolerance()).isEqualTo(core.getDropTolerance());
                assertThat(adaptive.getBackoffRatio()).isEqualTo(core.getBackoffRatio());
                assertThat(registry.resolveConfig("callee").getDropClassifier()).isSameAs(DropClassifier.ofDefaults());
                // A bulkhead without an entry takes the defaults too: adaptive below max-concurrent-calls 100.
                assertThat(registry.resolveConfig("other").getAdaptive().getMaxLimit()).isEqualTo(100);
                Bulkhead callee = registry.bulkhead("callee");
                assertThat(callee.isAdaptive()).isTrue();
                assertThat(callee.getLimit()).isEqualTo(AdaptiveLimitConfig.DEFAULT_INITIAL_LIMIT);
                assertThat(callee.getLimitAlgorithm().getName()).isEqualTo("gradient");
            });
    }

    @Test
    void aStartNobodyChoseMovesIntoTheBoundsOfEachBulkhead() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.defaults.adaptive.enabled=true",
                    "loom.bulkhead.instances.raised.max-concurrent-calls=300",
                    "loom.bulkhead.instances.raised.adaptive.min-limit=160",
                    "loom.bulkhead.instances.lowered.max-concurrent-calls=20",
                    "loom.bulkhead.instances.both.max-concurrent-calls=8",
                    "loom.bulkhead.instances.both.adaptive.min-limit=8")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                assertThat(registry.resolveConfig("raised").getAdaptive().getInitialLimit()).isEqualTo(160);
                assertThat(registry.resolveConfig("lowered").getAdaptive().getInitialLimit()).isEqualTo(20);
                assertThat(registry.resolveConfig("both").getAdaptive().getInitialLimit()).isEqualTo(8);
                assertThat(registry.bulkhead("raised").getLimit()).isEqualTo(160);
            });
    }

    @Test
    void everyKeyOfTheDefaultsBinds() {
        this.contextRunner.withPropertyValues("loom.bulkhead.defaults.max-concurrent-calls=300",
                "loom.bulkhead.defaults.adaptive.enabled=true", "loom.bulkhead.defaults.adaptive.algorithm=AIMD",
                "loom.bulkhead.defaults.adaptive.initial-limit=30", "loom.bulkhead.defaults.adaptive.min-limit=3",
                "loom.bulkhead.defaults.adaptive.rtt-tolerance=1.5", "loom.bulkhead.defaults.adaptive.increase-ratio=0.1",
                "loom.bulkhead.defaults.adaptive.window-samples=32", "loom.bulkhead.defaults.adaptive.drop-backoff=0.7",
                "loom.bulkhead.defaults.adaptive.drop-tolerance=0.1",
                "loom.bulkhead.defaults.adaptive.backoff-ratio=0.75",
                "loom.bulkhead.defaults.adaptive.drop-exceptions=java.lang.IllegalStateException,"
                        + "org.springframework.web.client.HttpServerErrorException.BadGateway")
            .run((context) -> {
                BulkheadConfig config = context.getBean(BulkheadRegistry.class).resolveConfig("anything");
                assertAdaptive(config.getAdaptive(), Algorithm.AIMD, 30, 3, 300, 1.5, 0.1, 32, 0.7, 0.1, 0.75);
                DropClassifier drops = config.getDropClassifier();
                assertThat(drops.classify(new IllegalStateException())).isEqualTo(Outcome.DROPPED);
                assertThat(drops.classify(new RuntimeException(new IllegalStateException()))).isEqualTo(Outcome.DROPPED);
                // Written with a dot for the nested class, as in Java source.
                assertThat(drops.classify(HttpServerErrorException.create(
                        org.springframework.http.HttpStatus.BAD_GATEWAY, "", null, null, null)))
                    .isEqualTo(Outcome.DROPPED);
                // Not listed: the defaults no longer apply.
                assertThat(drops.classify(new ConnectException())).isEqualTo(Outcome.SUCCESS);
                assertThat(drops.classify(new TimeoutException())).isEqualTo(Outcome.SUCCESS);
                assertThat(context.getBean(BulkheadRegistry.class).bulkhead("anything").getLimitAlgorithm().getName())
                    .isEqualTo("aimd");
            });
    }

    @Test
    void everyKeyOfAnInstanceOverridesTheDefaults() {
        this.contextRunner.withPropertyValues("loom.bulkhead.defaults.adaptive.algorithm=aimd",
                "loom.bulkhead.defaults.adaptive.min-limit=2", "loom.bulkhead.defaults.adaptive.window-samples=8",
                "loom.bulkhead.defaults.adaptive.drop-exceptions=java.lang.IllegalStateException",
                "loom.bulkhead.instances.callee.max-concurrent-calls=400",
                "loom.bulkhead.instances.callee.adaptive.enabled=true",
                "loom.bulkhead.instances.callee.adaptive.algorithm=gradient",
                "loom.bulkhead.instances.callee.adaptive.initial-limit=40",
                "loom.bulkhead.instances.callee.adaptive.min-limit=10",
                "loom.bulkhead.instances.callee.adaptive.rtt-tolerance=2.0",
                "loom.bulkhead.instances.callee.adaptive.increase-ratio=0.2",
                "loom.bulkhead.instances.callee.adaptive.window-samples=64",
                "loom.bulkhead.instances.callee.adaptive.drop-backoff=0.5",
                "loom.bulkhead.instances.callee.adaptive.drop-tolerance=0.2",
                "loom.bulkhead.instances.callee.adaptive.backoff-ratio=0.6",
                "loom.bulkhead.instances.callee.adaptive.drop-exceptions[0]=java.io.UncheckedIOException",
                "loom.bulkhead.instances.callee.adaptive.drop-exceptions[1]=java.util.concurrent.TimeoutException",
                "loom.bulkhead.instances.partial.max-concurrent-calls=50",
                "loom.bulkhead.instances.partial.adaptive.enabled=true",
                "loom.bulkhead.instances.partial.adaptive.initial-limit=6")
            .run((context) -> {
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                BulkheadConfig callee = registry.resolveConfig("callee");
                assertAdaptive(callee.getAdaptive(), Algorithm.GRADIENT, 40, 10, 400, 2.0, 0.2, 64, 0.5, 0.2, 0.6);
                assertThat(callee.getDropClassifier().classify(new java.io.UncheckedIOException(new IOException())))
                    .isEqualTo(Outcome.DROPPED);
                assertThat(callee.getDropClassifier().classify(new TimeoutException())).isEqualTo(Outcome.DROPPED);
                assertThat(callee.getDropClassifier().classify(new IllegalStateException())).isEqualTo(Outcome.SUCCESS);
                // Only what the instance sets differs; the rest comes from the defaults (the core's where unset).
                AdaptiveLimitConfig core = AdaptiveLimitConfig.ofDefaults();
                BulkheadConfig partial = registry.resolveConfig("partial");
                assertAdaptive(partial.getAdaptive(), Algorithm.AIMD, 6, 2, 50, core.getRttTolerance(),
                        core.getIncreaseRatio(), 8, core.getDropBackoff(), core.getDropTolerance(),
                        core.getBackoffRatio());
                assertThat(partial.getDropClassifier().classify(new IllegalStateException())).isEqualTo(Outcome.DROPPED);
                // The defaults keep adaptive off for bulkheads without an entry.
                assertThat(registry.resolveConfig("other").isAdaptive()).isFalse();
            });
    }

    @Test
    void anInstanceCanSwitchAdaptiveOffAndIsThenNotCheckedAgainstTheAdaptiveDefaults() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.defaults.adaptive.enabled=true",
                    "loom.bulkhead.instances.small.max-concurrent-calls=3",
                    "loom.bulkhead.instances.small.adaptive.enabled=false")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                BulkheadRegistry registry = context.getBean(BulkheadRegistry.class);
                assertThat(registry.resolveConfig("small").isAdaptive()).isFalse();
                assertThat(registry.bulkhead("small").getLimit()).isEqualTo(3);
                assertThat(registry.resolveConfig("other").isAdaptive()).isTrue();
            });
    }

    @Test
    void thePerHostTemplateBindsAdaptiveKeys() {
        this.contextRunner
            .withPropertyValues("loom.bulkhead.http.per-host.template.max-concurrent-calls=80",
                    "loom.bulkhead.http.per-host.template.adaptive.enabled=true",
                    "loom.bulkhead.http.per-host.template.adaptive.algorithm=aimd",
                    "loom.bulkhead.http.per-host.template.adaptive.initial-limit=8",
                    "loom.bulkhead.http.per-host.template.adaptive.min-limit=4",
                    "loom.bulkhead.http.per-host.template.adaptive.backoff-ratio=0.5")
            .run((context) -> {
                AdaptiveLimitConfig adaptive = context.getBean(BulkheadConfigMapper.class)
                    .perHostTemplate()
                    .getAdaptive();
                AdaptiveLimitConfig core = AdaptiveLimitConfig.ofDefaults();
                assertAdaptive(adaptive, Algorithm.AIMD, 8, 4, 80, core.getRttTolerance(), core.getIncreaseRatio(),
                        core.getWindowSamples(), core.getDropBackoff(), core.getDropTolerance(), 0.5);
            });
    }

    @Test
    void anEmptyDropListMakesNoFailureADrop() {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.callee.adaptive.drop-exceptions=")
            .run((context) -> {
                DropClassifier drops = context.getBean(BulkheadRegistry.class)
                    .resolveConfig("callee")
                    .getDropClassifier();
                assertThat(drops.classify(new ConnectException())).isEqualTo(Outcome.SUCCESS);
                assertThat(drops.classify(new TimeoutException())).isEqualTo(Outcome.SUCCESS);
            });
    }

    @Test
    void theDefaultDropListIsTheCoreClassifiers() {
        this.contextRunner.run((context) -> {
            List<String> defaults = context.getBean(LoomBulkheadProperties.class)
                .getDefaults()
                .getAdaptive()
                .getDropExceptions();
            assertThat(defaults).isEqualTo(LoomBulkheadProperties.DefaultAdaptive.DEFAULT_DROP_EXCEPTIONS);
            // Unset, the list maps to the core's classifier itself, which drops exactly these types.
            assertThat(context.getBean(BulkheadRegistry.class).resolveConfig("any").getDropClassifier())
                .isSameAs(DropClassifier.ofDefaults());
            DropClassifier core = DropClassifier.ofDefaults();
            assertThat(core.classify(new TimeoutException())).isEqualTo(Outcome.DROPPED);
            assertThat(core.classify(new InterruptedIOException())).isEqualTo(Outcome.DROPPED);
            assertThat(core.classify(new ConnectException())).isEqualTo(Outcome.DROPPED);
            assertThat(core.classify(new java.net.http.HttpTimeoutException("t"))).isEqualTo(Outcome.DROPPED);
            assertThat(core.classify(HttpServerErrorException.create(
                    org.springframework.http.HttpStatus.SERVICE_UNAVAILABLE, "", null, null, null)))
                .isEqualTo(Outcome.DROPPED);
            assertThat(core.classify(org.springframework.web.client.HttpClientErrorException.create(
                    org.springframework.http.HttpStatus.TOO_MANY_REQUESTS, "", null, null, null)))
                .isEqualTo(Outcome.DROPPED);
            assertThat(core.classify(new IOException())).isEqualTo(Outcome.SUCCESS);
        });
    }

    @Test
    void theIdeMetadataShowsTheCoreDefaults() throws IOException {
        String json = Files.readString(METADATA);
        AdaptiveLimitConfig core = AdaptiveLimitConfig.ofDefaults();
        assertThat(defaultsInMetadata(json)).containsOnly(entry("enabled", false),
                entry("algorithm", core.getAlgorithm().getName()), entry("initial-limit", core.getInitialLimit()),
                entry("min-limit", core.getMinLimit()), entry("rtt-tolerance", core.getRttTolerance()),
                entry("increase-ratio", core.getIncreaseRatio()), entry("window-samples", core.getWindowSamples()),
                entry("drop-backoff", core.getDropBackoff()), entry("drop-tolerance", core.getDropTolerance()),
                entry("backoff-ratio", core.getBackoffRatio()),
                entry("drop-exceptions", LoomBulkheadProperties.DefaultAdaptive.DEFAULT_DROP_EXCEPTIONS));
        assertThat(JsonPath.<List<String>>read(json,
                "$.hints[?(@.name == 'loom.bulkhead.defaults.adaptive.algorithm')].values[*].value"))
            .containsExactly("gradient", "aimd");
    }

    private static Map<String, Object> defaultsInMetadata(String json) {
        String prefix = "loom.bulkhead.defaults.adaptive.";
        List<Map<String, Object>> properties = JsonPath.read(json,
                "$.properties[?(@.name =~ /loom\\.bulkhead\\.defaults\\.adaptive\\..*/)]");
        Map<String, Object> defaults = new java.util.TreeMap<>();
        properties.forEach((property) -> defaults.put(((String) property.get("name")).substring(prefix.length()),
                property.get("defaultValue")));
        return defaults;
    }

    private static void assertAdaptive(AdaptiveLimitConfig adaptive, Algorithm algorithm, int initialLimit,
            int minLimit, int maxLimit, double rttTolerance, double increaseRatio, int windowSamples,
            double dropBackoff, double dropTolerance, double backoffRatio) {
        assertThat(adaptive).isNotNull();
        assertThat(adaptive.getAlgorithm()).isEqualTo(algorithm);
        assertThat(adaptive.getInitialLimit()).isEqualTo(initialLimit);
        assertThat(adaptive.getMinLimit()).isEqualTo(minLimit);
        assertThat(adaptive.getMaxLimit()).isEqualTo(maxLimit);
        assertThat(adaptive.getRttTolerance()).isEqualTo(rttTolerance);
        assertThat(adaptive.getIncreaseRatio()).isEqualTo(increaseRatio);
        assertThat(adaptive.getWindowSamples()).isEqualTo(windowSamples);
        assertThat(adaptive.getDropBackoff()).isEqualTo(dropBackoff);
        assertThat(adaptive.getDropTolerance()).isEqualTo(dropTolerance);
        assertThat(adaptive.getBackoffRatio()).isEqualTo(backoffRatio);
    }
}
