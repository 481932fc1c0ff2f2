package io.github.loombulkhead.sample;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.sample.mode.Modes;
import io.github.loombulkhead.sample.server.ServerCompareProperties;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.config.ConfigDataEnvironmentPostProcessor;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.MapPropertySource;

/**
 * Defaults that follow from the role and the scenario, at the lowest precedence so any explicit setting
 * wins: the callee gets Tomcat with {@code capacity} platform worker threads; the caller runs on virtual
 * threads (which activates loom-bulkhead), sizes the {@code callee} bulkhead from the scenario, makes the
 * {@code callee-adaptive} bulkhead adaptive with the adaptive max limit as its ceiling, sizes the
 * {@code callee-cluster} bulkhead like {@code callee} and shares it through Redis when {@code spring.data.redis.*}
 * is set (otherwise Redis is left alone, its health check too), and has no web server during a comparison.
 */
class SampleEnvironmentPostProcessor implements EnvironmentPostProcessor, Ordered {

    static final String SOURCE_NAME = "loomSampleDefaults";

    private static final String REDIS_PREFIX = "spring.data.redis.";

    private static final String REDIS_ENV_PREFIX = "SPRING_DATA_REDIS_";

    @Override
    public int getOrder() {
        return ConfigDataEnvironmentPostProcessor.ORDER + 1;
    }

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        UnknownSampleArguments.check(environment, application.getClassLoader());
        Binder binder = Binder.get(environment);
        SampleProperties properties = binder.bindOrCreate("loom.sample", SampleProperties.class);
        if (properties.isServerCompare() && properties.role() == SampleProperties.Role.CALLER) {
            // Checked here, before the context exists, so that a bad value exits with the bad-argument code as
            // the loom.sample.* values do: failing while the context refreshes, it would exit with 1.
            binder.bindOrCreate("loom.sample.server", ServerCompareProperties.class);
        }
        Scenario scenario = Scenario.from(properties);
        Map<String, Object> defaults = new LinkedHashMap<>();
        if (properties.role() == SampleProperties.Role.CALLEE) {
            defaults.put("spring.threads.virtual.enabled", "false");
            defaults.put("server.tomcat.threads.max", scenario.calleeCapacity());
            defaults.put("server.tomcat.threads.min-spare", scenario.calleeCapacity());
            // A listen backlog large enough that a burst of connections queues instead of being dropped and
            // retried (the kernel caps it at net.core.somaxconn).
            defaults.put("server.tomcat.accept-count", 4096);
            // Requests may still be sleeping when the caller stops the callee; nobody waits for their answers.
            defaults.put("server.shutdown", "immediate");
        }
        else {
            defaults.put("spring.threads.virtual.enabled", "true");
            // The callee's clients share one HttpClient configured like the reference (a pool that is never the
            // bottleneck); the starter would otherwise give the group a pool sized for the @Bulkhead limit,
            // which would also bound the unannotated client of the same group.
            defaults.put("loom.bulkhead.http.pool.enabled", "false");
            String bulkhead = "loom.bulkhead.instances." + Modes.HTTP_BULKHEAD_NAME + ".";
            defaults.put(bulkhead + "max-concurrent-calls", scenario.limit());
            defaults.put(bulkhead + "queue-capacity",
                    Math.max(scenario.requests(), BulkheadConfig.DEFAULT_QUEUE_CAPACITY));
            defaults.put(bulkhead + "max-wait-duration", scenario.modeDeadline().toMillis() + "ms");
            // The adaptive client's bulkhead: the switch and a ceiling (the adaptive max limit), the rest is the
            // algorithm's own defaults.
            String adaptive = "loom.bulkhead.instances." + Modes.ADAPTIVE_BULKHEAD_NAME + ".";
            defaults.put(adaptive + "adaptive.enabled", "true");
            defaults.put(adaptive + "max-concurrent-calls", scenario.adaptiveMaxLimit());
            defaults.put(adaptive + "queue-capacity", Math.max(scenario.requests(), BulkheadConfig.DEFAULT_QUEUE_CAPACITY));
            defaults.put(adaptive + "max-wait-duration", scenario.modeDeadline().toMillis() + "ms");
            String cluster = "loom.bulkhead.instances." + Modes.CLUSTER_BULKHEAD_NAME + ".";
            defaults.put(cluster + "max-concurrent-calls", scenario.limit());
            defaults.put(cluster + "queue-capacity", Math.max(scenario.requests(), BulkheadConfig.DEFAULT_QUEUE_CAPACITY));
            defaults.put(cluster + "max-wait-duration", scenario.modeDeadline().toMillis() + "ms");
            if (isRedisConfigured(environment)) {
                defaults.put(cluster + "cluster.enabled", "true");
                // A Redis that hangs is noticed in half a second rather than Lettuce's 60 s (see docs/cluster.md).
                defaults.put("spring.data.redis.timeout", "500ms");
            }
            else {
                defaults.put("management.health.redis.enabled", "false");
            }
            if (properties.isCompare() || properties.isServerCompare()) {
                defaults.put("spring.main.web-application-type", "none");
            }
            if (properties.isServerCompare()) {
                // The reference's Server2 answers after 200 ms.
                defaults.put("loom.sample.callee.latency", "200ms");
            }
        }
        environment.getPropertySources().addLast(new MapPropertySource(SOURCE_NAME, defaults));
    }

    /** Whether any {@code spring.data.redis.*} property is set, from any source. */
    static boolean isRedisConfigured(ConfigurableEnvironment environment) {
        return environment.getPropertySources()
            .stream()
            .filter(EnumerablePropertySource.class::isInstance)
            .flatMap((source) -> Arrays.stream(((EnumerablePropertySource<?>) source).getPropertyNames()))
            .anyMatch((name) -> name.startsWith(REDIS_PREFIX) || name.startsWith(REDIS_ENV_PREFIX));
    }
}
