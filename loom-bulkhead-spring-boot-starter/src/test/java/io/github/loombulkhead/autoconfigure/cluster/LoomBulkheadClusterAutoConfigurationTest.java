package io.github.loombulkhead.autoconfigure.cluster;

import java.time.Duration;
import java.util.UUID;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.InvalidBulkheadPropertyException;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.autoconfigure.endpoint.BulkheadsEndpoint;
import io.github.loombulkhead.autoconfigure.endpoint.LoomBulkheadEndpointAutoConfiguration;
import io.github.loombulkhead.autoconfigure.metrics.LoomBulkheadMetricsAutoConfiguration;
import io.github.loombulkhead.redis.ClusterBulkhead;
import io.github.loombulkhead.redis.ClusterBulkheads;
import io.github.loombulkhead.redis.ClusterFallback;
import io.github.loombulkhead.redis.ClusterMode;
import io.github.loombulkhead.redis.RedisServer;
import io.github.loombulkhead.redis.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/** The starter wires cluster bulkheads to Spring Boot's RedisConnectionFactory, a real redis-server behind it. */
@ExtendWith({ RedisServerExtension.class, OutputCaptureExtension.class })
class LoomBulkheadClusterAutoConfigurationTest {

    private ApplicationContextRunner contextRunner;

    @BeforeEach
    void contextRunner(RedisServer redis) {
        this.contextRunner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, MetricsAutoConfiguration.class,
                    CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                    LoomBulkheadAutoConfiguration.class, LoomBulkheadMetricsAutoConfiguration.class,
                    LoomBulkheadEndpointAutoConfiguration.class, LoomBulkheadClusterAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "spring.data.redis.host=127.0.0.1",
                    "spring.data.redis.port=" + redis.port(), "spring.data.redis.timeout=500ms",
                    "loom.bulkhead.cluster.key-prefix=test-" + UUID.randomUUID(),
                    "loom.bulkhead.instances.callee.max-concurrent-calls=3",
                    "loom.bulkhead.instances.callee.cluster.enabled=true",
                    "loom.bulkhead.instances.callee.cluster.lease-duration=2s",
                    "loom.bulkhead.instances.callee.cluster.idle-linger=250ms",
                    "loom.bulkhead.instances.callee.cluster.fallback=reject",
                    "loom.bulkhead.instances.local.max-concurrent-calls=3");
    }

    @Test
    void theLimitIsSharedByTwoApplicationsAgainstOneRedis() {
        this.contextRunner.run((first) -> this.contextRunner.run((second) -> {
            Bulkhead callee = first.getBean(BulkheadRegistry.class).bulkhead("callee");
            for (int i = 0; i < 3; i++) {
                callee.acquirePermit();
            }
            Bulkhead other = second.getBean(BulkheadRegistry.class).bulkhead("callee");
            assertThat(other.tryAcquirePermit()).isFalse();
            ClusterBulkhead otherCluster = second.getBean(ClusterBulkheads.class).find("callee").orElseThrow();
            await().atMost(Duration.ofSeconds(5)).until(() -> otherCluster.getClusterInFlight() == 3);
            assertThat(otherCluster.getConfig().getLeaseDuration()).isEqualTo(Duration.ofSeconds(2));
            assertThat(otherCluster.getConfig().getIdleLinger()).isEqualTo(Duration.ofMillis(250));
            assertThat(otherCluster.getConfig().getFallback()).isEqualTo(ClusterFallback.REJECT);
            // Only the bulkhead that enables cluster is leased.
            assertThat(first.getBean(ClusterBulkheads.class).getAll()).extracting(ClusterBulkhead::getName)
                .containsExactly("callee");
            assertThat(first.getBean(BulkheadRegistry.class).bulkhead("local").getLimit()).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                callee.onComplete(0);
            }
        }));
    }

    @Test
    void anActuatorLimitWriteAppliesToEveryApplication() {
        this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*")
            .run((first) -> this.contextRunner.run((second) -> {
                var changed = first.getBean(BulkheadsEndpoint.class).update(new String[] { "callee" }, 5, null);
                // Idle, the process holds none of the permits: the write says so instead of "the limit set to 5".
                assertThat(changed.change()).isEqualTo("maxConcurrentCalls set to 5 for all processes; the limit here "
                        + "is the " + changed.limit() + " permits this process holds of them now");
                assertThat(changed.limit()).isLessThan(5);
                ClusterBulkhead other = second.getBean(ClusterBulkheads.class).find("callee").orElseThrow();
                await().atMost(Duration.ofSeconds(5)).until(() -> other.getLimit() == 5);
                assertThat(second.getBean(BulkheadRegistry.class).bulkhead("callee").getConfig().getMaxConcurrentCalls())
                    .isEqualTo(5);
            }));
    }

    @Test
    void aLimitWriteEqualToThePermitsHeldStillSpeaksOfAllProcesses() {
        this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*").run((context) -> {
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            callee.acquirePermit();
            callee.acquirePermit();
            var changed = context.getBean(BulkheadsEndpoint.class).update(new String[] { "callee" }, 2, null);
            assertThat(changed.limit()).isEqualTo(2);
            assertThat(changed.change()).isEqualTo("maxConcurrentCalls set to 2 for all processes; the limit here "
                    + "is the 2 permits this process holds of them now");
            callee.onComplete(0);
            callee.onComplete(0);
        });
    }

    @Test
    void aLimitWriteWhileRedisIsAwaySaysItIsStoredOnceRedisIsBack() {
        RedisServer own = RedisServer.start();
        try {
            this.contextRunner
                .withPropertyValues("spring.data.redis.port=" + own.port(), "management.endpoints.web.exposure.include=*")
                .run((context) -> {
                    ClusterBulkhead cluster = context.getBean(ClusterBulkheads.class).find("callee").orElseThrow();
                    await().atMost(Duration.ofSeconds(5)).until(() -> cluster.getRenewalCount() > 0);
                    own.stop();
                    await().atMost(Duration.ofSeconds(5)).until(() -> cluster.getMode() == ClusterMode.FALLBACK);

                    var changed = context.getBean(BulkheadsEndpoint.class).update(new String[] { "callee" }, 5, null);
                    // With fallback: reject the limit here is 0 while Redis is away, whatever was written.
                    assertThat(changed.limit()).isZero();
                    assertThat(changed.change()).isEqualTo("maxConcurrentCalls set to 5, stored for all processes once "
                            + "Redis is back; meanwhile the limit here is the fallback's 0");
                    assertThat(cluster.getLimit()).isEqualTo(3);

                    own.restart();
                    await().atMost(Duration.ofSeconds(5))
                        .until(() -> cluster.getMode() == ClusterMode.CLUSTER && cluster.getLimit() == 5);
                    assertThat(context.getBean(BulkheadRegistry.class).bulkhead("callee").getConfig().getMaxConcurrentCalls())
                        .isEqualTo(5);
                });
        }
        finally {
            own.stop();
        }
    }

    @Test
    void anActuatorWriteOfNoWaitIsRefusedBecauseLeasedCallsMustWaitForLeases() {
        this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*").run((context) -> {
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            BulkheadsEndpoint endpoint = context.getBean(BulkheadsEndpoint.class);
            Duration before = callee.getConfig().getMaxWaitDuration();
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.update(new String[] { "callee" }, 5, Duration.ZERO))
                .withMessage("Bulkhead 'callee': its limit is leased (a cluster bulkhead), and its calls wait for the "
                        + "permits leased for them, so maxWaitDuration must be above 0 but was PT0S; nothing changed");
            assertThat(callee.getConfig().getMaxWaitDuration()).isEqualTo(before);
            assertThat(callee.getConfig().getMaxConcurrentCalls()).isEqualTo(3);
            // Calls still get leases: a zero wait would have left none requested, and every call rejected.
            callee.acquirePermit();
            callee.onComplete(0);
            // A wait above zero is a change like any other.
            assertThat(endpoint.update(new String[] { "callee" }, null, Duration.ofSeconds(3)).change())
                .isEqualTo("maxWaitDuration set to PT3S");
        });
    }

    @Test
    void closingTheContextGivesTheLeasesBackWhileRedisCanStillBeReached(CapturedOutput output) {
        Duration lease = Duration.ofSeconds(6);
        ApplicationContextRunner lingering = this.contextRunner.withPropertyValues(
                "loom.bulkhead.instances.callee.max-wait-duration=30s",
                "loom.bulkhead.instances.callee.cluster.lease-duration=" + lease.toMillis() + "ms",
                "loom.bulkhead.instances.callee.cluster.idle-linger=30s");
        lingering.run((first) -> lingering.run((second) -> {
            // Closed in the phase right above the connection factory's, so before it stops.
            assertThat(first.getBean(ClusterBulkheadsLifecycle.class).getPhase())
                .isEqualTo(((SmartLifecycle) first.getBean(RedisConnectionFactory.class)).getPhase() + 1);
            Bulkhead callee = first.getBean(BulkheadRegistry.class).bulkhead("callee");
            for (int i = 0; i < 3; i++) {
                callee.acquirePermit();
            }
            for (int i = 0; i < 3; i++) {
                callee.onComplete(0);
            }
            // The whole limit now lingers, idle, in the first application.
            ClusterBulkhead firstCluster = first.getBean(ClusterBulkheads.class).find("callee").orElseThrow();
            ClusterBulkhead secondCluster = second.getBean(ClusterBulkheads.class).find("callee").orElseThrow();
            await().atMost(Duration.ofSeconds(5))
                .until(() -> firstCluster.getHeldPermits() == 3 && secondCluster.getClusterInFlight() == 3);

            first.close();
            long start = System.nanoTime();
            Bulkhead other = second.getBean(BulkheadRegistry.class).bulkhead("callee");
            for (int i = 0; i < 3; i++) {
                other.acquirePermit();
            }
            Duration waited = Duration.ofNanos(System.nanoTime() - start);
            // Given back at close, not left to expire: well within a fifth of the lease.
            assertThat(waited).isLessThan(lease.dividedBy(5));
            assertThat(secondCluster.getHeldPermits()).isEqualTo(3);
            for (int i = 0; i < 3; i++) {
                other.onComplete(0);
            }
        }));
        // The last sync reached Redis: neither a failed give-back nor a fallback during shutdown.
        assertThat(output).doesNotContain("could not give back").doesNotContain("Redis unreachable");
    }

    @Test
    void aClusterBulkheadsBeanOfTheApplicationReplacesTheStartersAndItsLifecycle() {
        this.contextRunner.withUserConfiguration(OwnClusterConfiguration.class).run((context) -> {
            // The application closes its own (here at destroy, the inferred close method).
            assertThat(context).hasSingleBean(ClusterBulkheads.class).doesNotHaveBean(ClusterBulkheadsLifecycle.class);
            assertThat(context.getBean(ClusterBulkheads.class).getKeyPrefix()).isEqualTo("own");
            assertThat(context.getBean(ClusterBulkheads.class).getAll()).isEmpty();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnClusterConfiguration {

        @Bean
        ClusterBulkheads ownCluster(RedisConnectionFactory connectionFactory) {
            return ClusterBulkheads.create(connectionFactory, "own");
        }
    }

    @Test
    void metersShowTheClusterView() {
        this.contextRunner.run((context) -> {
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            callee.acquirePermit();
            callee.acquirePermit();
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            assertThat(meters.get("loom.bulkhead.cluster.permits.held").tag("name", "callee").gauge().value())
                .isEqualTo(2.0);
            assertThat(meters.get("loom.bulkhead.cluster.limit").tag("name", "callee").gauge().value()).isEqualTo(3.0);
            assertThat(meters.get("loom.bulkhead.cluster.fallback").tag("name", "callee").gauge().value()).isZero();
            assertThat(meters.get("loom.bulkhead.cluster.renewals").tag("name", "callee").functionCounter().count())
                .isPositive();
            assertThat(meters.get("loom.bulkhead.cluster.errors").tag("name", "callee").functionCounter().count())
                .isZero();
            assertThat(meters.get("loom.bulkhead.cluster.round.trip").tags("name", "callee", "outcome", "success")
                .timer()
                .count()).isPositive();
            await().atMost(Duration.ofSeconds(5))
                .until(() -> meters.get("loom.bulkhead.cluster.in.flight").tag("name", "callee").gauge().value() == 2.0);
            callee.onComplete(0);
            callee.onComplete(0);
        });
    }

    @Test
    void theEndpointShowsTheClusterView() {
        this.contextRunner.withPropertyValues("management.endpoints.web.exposure.include=*").run((context) -> {
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            callee.acquirePermit();
            BulkheadClusterEndpoint endpoint = context.getBean(BulkheadClusterEndpoint.class);
            BulkheadClusterEndpoint.ClusterBulkheadDescriptor view = endpoint.bulkhead("callee");
            assertThat(view.limit()).isEqualTo(3);
            assertThat(view.heldPermits()).isEqualTo(1);
            assertThat(view.localActive()).isEqualTo(1);
            assertThat(view.mode()).isEqualTo(ClusterMode.CLUSTER);
            assertThat(view.fallback()).isEqualTo("reject");
            assertThat(endpoint.cluster().processId())
                .isEqualTo(context.getBean(ClusterBulkheads.class).getProcessId());
            assertThat(endpoint.cluster().bulkheads()).containsOnlyKeys("callee");
            callee.onComplete(0);
        });
    }

    @Test
    void theEndpointFindsAClusterBulkheadWhoseNameHasSlashes() {
        this.contextRunner
            .withPropertyValues("management.endpoints.web.exposure.include=*",
                    "loom.bulkhead.instances[payments//eu/api].max-concurrent-calls=4",
                    "loom.bulkhead.instances[payments//eu/api].cluster.enabled=true")
            .run((context) -> {
                BulkheadClusterEndpoint endpoint = context.getBean(BulkheadClusterEndpoint.class);
                // As the web layers hand the path over: split at every slash, empty segments dropped.
                assertThat(endpoint.bulkhead("payments", "eu", "api")).isNotNull()
                    .extracting(BulkheadClusterEndpoint.ClusterBulkheadDescriptor::limit)
                    .isEqualTo(4);
                assertThat(endpoint.bulkhead("payments", "us", "api")).isNull();
            });
    }

    @Test
    void withoutAnInstanceThatEnablesClusterNothingTalksToRedis() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    LoomBulkheadAutoConfiguration.class, LoomBulkheadClusterAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.instances.callee.max-concurrent-calls=3")
            .run((context) -> {
                assertThat(context).hasNotFailed().doesNotHaveBean(ClusterBulkheads.class);
                assertThat(context.getBean(BulkheadRegistry.class).bulkhead("callee").getLimit()).isEqualTo(3);
            });
    }

    @Test
    void clusterWithoutARedisConnectionFactoryFailsNamingTheProperty() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadClusterAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.instances.callee.cluster.enabled=true")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidBulkheadPropertyException.class)
                .hasMessage("Invalid value 'true' for property 'loom.bulkhead.instances.callee.cluster.enabled': cluster "
                        + "limits need a RedisConnectionFactory bean and there is none"));
    }

    @Test
    void clusterWithoutTheRedisModuleFailsNamingIt() {
        new ApplicationContextRunner().withClassLoader(new FilteredClassLoader(ClusterBulkheads.class))
            .withConfiguration(AutoConfigurations.of(LoomBulkheadAutoConfiguration.class,
                    LoomBulkheadClusterAutoConfiguration.class))
            .withPropertyValues("spring.threads.virtual.enabled=true", "loom.bulkhead.instances.callee.cluster.enabled=true")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .hasMessage("Invalid value 'true' for property 'loom.bulkhead.instances.callee.cluster.enabled': cluster "
                        + "limits need loom-bulkhead-redis on the class path"));
    }

    @Test
    void aLeaseTooShortFailsNamingTheProperty() {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.callee.cluster.lease-duration=100ms")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidBulkheadPropertyException.class)
                .isInstanceOfSatisfying(InvalidBulkheadPropertyException.class, (ex) -> {
                    // The value as written and where, as for every other loom.bulkhead property.
                    assertThat(ex.getValue()).isEqualTo("100ms");
                    assertThat(ex.getOrigin()).isNotNull();
                    assertThat(ex.getReason()).isEqualTo("leaseDuration must be at least 300 ms (leases are renewed "
                            + "three times per lease) but was PT0.1S");
                }));
    }

    @Test
    void aNegativeIdleLingerFailsNamingTheProperty() {
        this.contextRunner.withPropertyValues("loom.bulkhead.instances.callee.cluster.idle-linger=-1s")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(InvalidBulkheadPropertyException.class)
                .hasMessageStartingWith(
                        "Invalid value '-1s' for property 'loom.bulkhead.instances.callee.cluster.idle-linger' (")
                .hasMessageEndingWith("): idle leases cannot linger for a negative time"));
    }
}
