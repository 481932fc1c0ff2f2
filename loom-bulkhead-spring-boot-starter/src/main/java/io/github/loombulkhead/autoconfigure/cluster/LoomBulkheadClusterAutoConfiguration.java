package io.github.loombulkhead.autoconfigure.cluster;

import java.time.Duration;
import java.util.List;

import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.BulkheadConfigMapper;
import io.github.loombulkhead.autoconfigure.InvalidBulkheadPropertyException;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties;
import io.github.loombulkhead.autoconfigure.LoomBulkheadProperties.InstanceCluster;
import io.github.loombulkhead.autoconfigure.endpoint.LeasedLimitFallback;
import io.github.loombulkhead.redis.ClusterBulkhead;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterConfig;
import io.github.loombulkhead.redis.ClusterFallback;
import io.github.loombulkhead.redis.ClusterListener;
import io.github.loombulkhead.redis.ClusterMode;
import io.micrometer.core.instrument.MeterRegistry;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnThreading;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes each bulkhead with {@code loom.bulkhead.instances.<name>.cluster.enabled=true} share its limit with every
 * process that uses the same name against the same Redis, through the application's {@link RedisConnectionFactory}
 * (Spring Boot's, from {@code spring.data.redis.*}); adds its meters and the {@code bulkheadcluster} endpoint. Without
 * loom-bulkhead-redis or a connection factory, startup fails naming the property, rather than quietly multiplying the
 * limit by the number of processes. When the context closes, the cluster bulkheads give their unused leases back just
 * before the connection factory stops, after web graceful shutdown (see {@code ClusterBulkheadsLifecycle}).
 */
@AutoConfiguration(after = LoomBulkheadAutoConfiguration.class,
        afterName = { "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
                "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration" })
@ConditionalOnBooleanProperty(name = "loom.bulkhead.enabled", matchIfMissing = true)
@ConditionalOnThreading(Threading.VIRTUAL)
@ConditionalOnBean(BulkheadRegistry.class)
@Conditional(OnClusterEnabledCondition.class)
public final class LoomBulkheadClusterAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({ ClusterBulkheads.class, RedisConnectionFactory.class })
    @ConditionalOnBean(RedisConnectionFactory.class)
    static class RedisClusterConfiguration {

        /**
         * The starter's cluster bulkheads, and what closes them before the connection factory stops. A
         * {@link ClusterBulkheads} bean of the application's own replaces both: the application closes it, and should
         * do so before the connection factory stops (a {@link org.springframework.context.SmartLifecycle} in a phase
         * above the factory's), or its leases stay locked until they expire.
         */
        @Configuration(proxyBeanMethods = false)
        @ConditionalOnMissingBean(ClusterBulkheads.class)
        static class ClusterBulkheadsConfiguration {

            /**
             * Leases the permits of every cluster-enabled bulkhead from Redis; closing gives back the unused ones. The
             * lifecycle below closes it while Redis is still reachable; the destroy method closes it when the context
             * never stopped its lifecycle beans (a failed refresh), a no-op otherwise.
             */
            @Bean(destroyMethod = "close")
            ClusterBulkheads loomBulkheadCluster(RedisConnectionFactory connectionFactory, BulkheadRegistry registry,
                    LoomBulkheadProperties properties, ObjectProvider<ClusterListener> listeners, Environment environment) {
                ClusterListener listener = new CompositeClusterListener(listeners.orderedStream().toList());
                ClusterBulkheads cluster = ClusterBulkheads.create(connectionFactory,
                        keyPrefix(environment, properties.getCluster().getKeyPrefix()), listener);
                try {
                    properties.getInstances().forEach((name, instance) -> {
                        if (instance.getCluster().isEnabled()) {
                            cluster.attach(registry.bulkhead(name),
                                    clusterConfig(environment, name, instance.getCluster()));
                        }
                    });
                }
                catch (RuntimeException ex) {
                    cluster.close();
                    throw ex;
                }
                return cluster;
            }

            /** Gives back the leases when the context stops, before the connection factory stops. */
            @Bean
            ClusterBulkheadsLifecycle loomBulkheadClusterLifecycle(ClusterBulkheads loomBulkheadCluster,
                    RedisConnectionFactory connectionFactory) {
                return new ClusterBulkheadsLifecycle(loomBulkheadCluster, connectionFactory);
            }
        }

        private static String keyPrefix(Environment environment, String keyPrefix) {
            if (keyPrefix == null || keyPrefix.isBlank() || keyPrefix.contains("{") || keyPrefix.contains("}")) {
                throw InvalidBulkheadPropertyException.of(environment, "loom.bulkhead.cluster.key-prefix", keyPrefix,
                        "a key prefix must be non-blank and free of braces (they are added around the bulkhead name)",
                        "Set loom.bulkhead.cluster.key-prefix to e.g. orders-service:prod.");
            }
            return keyPrefix;
        }

        private static ClusterConfig clusterConfig(Environment environment, String name, InstanceCluster cluster) {
            Duration idleLinger = cluster.getIdleLinger();
            if (idleLinger == null || idleLinger.isNegative()) {
                throw InvalidBulkheadPropertyException.of(environment,
                        BulkheadConfigMapper.instanceKey(name) + ".cluster.idle-linger", idleLinger,
                        "idle leases cannot linger for a negative time",
                        "Set it to 0 (give idle permits back at once) or more, e.g. 1s.");
            }
            try {
                return ClusterConfig.custom()
                    .leaseDuration(cluster.getLeaseDuration())
                    .idleLinger(idleLinger)
                    .fallback(ClusterFallback.valueOf(cluster.getFallback().name()))
                    .build();
            }
            catch (IllegalArgumentException ex) {
                throw InvalidBulkheadPropertyException.of(environment, BulkheadConfigMapper.instanceKey(name)
                        + ".cluster.lease-duration", cluster.getLeaseDuration(), ex.getMessage(),
                        "Set it to 300ms or more, e.g. 5s: a dead process's permits come back after it.");
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(MeterRegistry.class)
        @ConditionalOnBean(MeterRegistry.class)
        static class ClusterMetricsConfiguration {

            @Bean
            @ConditionalOnMissingBean
            ClusterMetrics loomBulkheadClusterMetrics(MeterRegistry meterRegistry) {
                return new ClusterMetrics(meterRegistry);
            }

            @Bean
            ClusterMetricsBinder loomBulkheadClusterMetricsBinder(ClusterMetrics metrics, ClusterBulkheads cluster) {
                return new ClusterMetricsBinder(metrics, cluster);
            }
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass({ Endpoint.class, ConditionalOnAvailableEndpoint.class })
        static class ClusterEndpointConfiguration {

            @Bean
            @ConditionalOnMissingBean
            @ConditionalOnAvailableEndpoint
            BulkheadClusterEndpoint bulkheadClusterEndpoint(ClusterBulkheads cluster) {
                return new BulkheadClusterEndpoint(cluster);
            }

            /** Tells the bulkheads endpoint which cluster bulkheads are in their fallback, for its limit writes. */
            @Bean
            LeasedLimitFallback loomBulkheadClusterFallback(ClusterBulkheads cluster) {
                return (bulkhead) -> cluster.find(bulkhead.getName())
                    .filter((clustered) -> clustered.getBulkhead() == bulkhead)
                    .map((clustered) -> clustered.getMode() == ClusterMode.FALLBACK)
                    .orElse(false);
            }
        }
    }

    /** Fails startup when a bulkhead enables cluster but nothing can reach Redis. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(NoRedisCondition.class)
    static class MissingRedisConfiguration {

        @Bean
        static Object loomBulkheadClusterUnavailable(Environment environment, ResourceLoader resourceLoader) {
            String name = OnClusterEnabledCondition.clusterInstances(environment).iterator().next();
            boolean moduleMissing = !ClassUtils.isPresent("io.github.loombulkhead.redis.ClusterBulkheads",
                    resourceLoader.getClassLoader());
            throw new InvalidBulkheadPropertyException(BulkheadConfigMapper.instanceKey(name) + ".cluster.enabled", true,
                    null, moduleMissing ? "cluster limits need loom-bulkhead-redis on the class path"
                            : "cluster limits need a RedisConnectionFactory bean and there is none",
                    moduleMissing ? "Add io.github.loombulkhead:loom-bulkhead-redis and spring-boot-starter-data-redis."
                            : "Add spring-boot-starter-data-redis and set spring.data.redis.host/port, or set cluster.enabled=false.");
        }
    }

    /** Matches without loom-bulkhead-redis or without a RedisConnectionFactory bean. */
    static final class NoRedisCondition extends AnyNestedCondition {

        NoRedisCondition() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnMissingClass("io.github.loombulkhead.redis.ClusterBulkheads")
        static class ModuleMissing {
        }

        @ConditionalOnMissingBean(type = "org.springframework.data.redis.connection.RedisConnectionFactory")
        static class ConnectionFactoryMissing {
        }
    }

    /** Tells every listener, in order. */
    private record CompositeClusterListener(List<ClusterListener> listeners) implements ClusterListener {

        @Override
        public void onRoundTrip(ClusterBulkhead cluster, long nanos, RuntimeException error) {
            this.listeners.forEach((listener) -> listener.onRoundTrip(cluster, nanos, error));
        }

        @Override
        public void onModeChanged(ClusterBulkhead cluster, ClusterMode mode) {
            this.listeners.forEach((listener) -> listener.onModeChanged(cluster, mode));
        }
    }
}
