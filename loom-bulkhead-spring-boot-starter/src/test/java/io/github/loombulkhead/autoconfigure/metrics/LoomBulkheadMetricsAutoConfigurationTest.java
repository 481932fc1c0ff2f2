package io.github.loombulkhead.autoconfigure.metrics;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.BulkheadRejectedException;
import io.github.loombulkhead.RejectionReason;
import io.github.loombulkhead.autoconfigure.LoomBulkheadAutoConfiguration;
import io.github.loombulkhead.limit.CallerPauses;
import io.github.loombulkhead.limit.Outcome;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The {@code loom.bulkhead.*} meters: names, tags, units, exact counts, late bulkheads. */
class LoomBulkheadMetricsAutoConfigurationTest {

    private static final String[] ADAPTIVE = { "loom.bulkhead.instances.flexible.max-concurrent-calls=50",
            "loom.bulkhead.instances.flexible.adaptive.enabled=true",
            "loom.bulkhead.instances.flexible.adaptive.algorithm=aimd",
            "loom.bulkhead.instances.flexible.adaptive.initial-limit=10",
            "loom.bulkhead.instances.flexible.adaptive.min-limit=2" };

    private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                LoomBulkheadAutoConfiguration.class, LoomBulkheadMetricsAutoConfiguration.class))
        .withPropertyValues("spring.threads.virtual.enabled=true",
                "loom.bulkhead.instances.callee.max-concurrent-calls=2",
                "loom.bulkhead.instances.callee.queue-capacity=0");

    @Test
    void configuredBulkheadHasEveryMeterFromTheStart() {
        this.contextRunner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Gauge limit = registry.get("loom.bulkhead.limit").tag("name", "callee").gauge();
            assertThat(limit.value()).isEqualTo(2.0);
            assertThat(limit.getId().getBaseUnit()).isEqualTo("calls");
            assertThat(limit.getId().getDescription()).isEqualTo(
                    "Maximum number of calls or tasks that may hold a permit at once");
            assertThat(registry.get("loom.bulkhead.active").tag("name", "callee").gauge().value()).isZero();
            assertThat(registry.get("loom.bulkhead.waiting").tag("name", "callee").gauge().value()).isZero();
            assertThat(registry.get("loom.bulkhead.calls").tag("name", "callee").functionCounters()).hasSize(6)
                .allSatisfy((counter) -> assertThat(counter.count()).isZero())
                .allSatisfy((counter) -> assertThat(counter.getId().getBaseUnit()).isEqualTo("calls"));
            assertThat(registry.get("loom.bulkhead.wait").tag("name", "callee").timers()).hasSize(2);
            assertThat(registry.get("loom.bulkhead.execution").tag("name", "callee").timer().count()).isZero();
            assertThat(registry.getMeters())
                .filteredOn((meter) -> meter.getId().getName().startsWith("loom.bulkhead."))
                .allSatisfy((meter) -> assertThat(meter.getId().getTag("name")).isEqualTo("callee"))
                .allSatisfy((meter) -> assertThat(meter.getId().getDescription()).isNotBlank());
        });
    }

    @Test
    void countsPermittedRejectedAndTimesExactly() {
        this.contextRunner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            assertThat(callee.tryAcquirePermit()).isTrue();
            assertThat(callee.tryAcquirePermit()).isTrue();
            assertThat(registry.get("loom.bulkhead.active").tag("name", "callee").gauge().value()).isEqualTo(2.0);
            for (int i = 0; i < 3; i++) {
                assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(callee::acquirePermit)
                    .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(RejectionReason.QUEUE_FULL));
            }
            callee.onComplete(TimeUnit.MILLISECONDS.toNanos(30));
            callee.onComplete(TimeUnit.MILLISECONDS.toNanos(50));
            assertThat(count(registry, "permitted", "none")).isEqualTo(2.0);
            assertThat(count(registry, "rejected", "queue-full")).isEqualTo(3.0);
            assertThat(count(registry, "rejected", "wait-timed-out")).isZero();
            assertThat(count(registry, "rejected", "shut-down")).isZero();
            assertThat(count(registry, "rejected", "interrupted")).isZero();
            Timer execution = registry.get("loom.bulkhead.execution").tag("name", "callee").timer();
            assertThat(execution.count()).isEqualTo(2);
            assertThat(execution.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(80.0);
            assertThat(registry.get("loom.bulkhead.wait").tags("name", "callee", "outcome", "permitted").timer().count())
                .isEqualTo(2);
            assertThat(registry.get("loom.bulkhead.wait").tags("name", "callee", "outcome", "rejected").timer().count())
                .isEqualTo(3);
            assertThat(registry.get("loom.bulkhead.active").tag("name", "callee").gauge().value()).isZero();
        });
    }

    @Test
    void callsMadeWhileTheContextStartsAreCounted() {
        // Spring Boot binds meters once every singleton exists: these calls come before that.
        this.contextRunner.withBean(StartupCalls.class).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(context.getBean(StartupCalls.class).made).isTrue();
            assertThat(count(registry, "permitted", "none")).isEqualTo(2.0);
            assertThat(count(registry, "rejected", "queue-full")).isEqualTo(1.0);
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            callee.acquirePermit();
            callee.onComplete(0);
            assertThat(count(registry, "permitted", "none")).isEqualTo(3.0);
        });
    }

    @Test
    void limitGaugeFollowsRuntimeChanges() {
        this.contextRunner.run((context) -> {
            context.getBean(BulkheadRegistry.class).bulkhead("callee").changeLimit(9);
            assertThat(context.getBean(MeterRegistry.class).get("loom.bulkhead.limit").tag("name", "callee").gauge()
                .value()).isEqualTo(9.0);
        });
    }

    @Test
    void bulkheadCreatedLaterIsBoundToo() {
        this.contextRunner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.find("loom.bulkhead.limit").tag("name", "late").gauge()).isNull();
            Bulkhead late = context.getBean(BulkheadRegistry.class).bulkhead("late");
            assertThat(registry.get("loom.bulkhead.limit").tag("name", "late").gauge().value()).isEqualTo(100.0);
            late.acquirePermit();
            late.onComplete(Duration.ofMillis(5).toNanos());
            assertThat(registry.get("loom.bulkhead.calls").tags("name", "late", "outcome", "permitted").functionCounter().count())
                .isEqualTo(1.0);
            assertThat(registry.get("loom.bulkhead.execution").tag("name", "late").timer().count()).isEqualTo(1);
        });
    }

    @Test
    void backsOffToUserMetricsBean() {
        BulkheadMetrics own = new BulkheadMetrics(BulkheadRegistry.ofDefaults());
        this.contextRunner.withBean(BulkheadMetrics.class, () -> own)
            .run((context) -> assertThat(context).getBean(BulkheadMetrics.class).isSameAs(own));
    }

    @Test
    void bindsToAUserMeterRegistry() {
        SimpleMeterRegistry own = new SimpleMeterRegistry();
        this.contextRunner.withBean(SimpleMeterRegistry.class, () -> own)
            .run((context) -> assertThat(own.get("loom.bulkhead.limit").tag("name", "callee").gauge().value())
                .isEqualTo(2.0));
    }

    @Test
    void adaptiveBulkheadHasAdaptiveMetersFromTheStartAndAStaticOneNone() {
        this.contextRunner.withPropertyValues(ADAPTIVE).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("loom.bulkhead.limit").tag("name", "flexible").gauge().value()).isEqualTo(10.0);
            Gauge ceiling = registry.get("loom.bulkhead.adaptive.ceiling").tag("name", "flexible").gauge();
            assertThat(ceiling.value()).isEqualTo(50.0);
            assertThat(ceiling.getId().getBaseUnit()).isEqualTo("calls");
            assertThat(registry.get("loom.bulkhead.adaptive.rtt").tag("name", "flexible").timer().count()).isZero();
            assertThat(registry.get("loom.bulkhead.adaptive.drops").tag("name", "flexible").counter().count()).isZero();
            assertThat(registry.get("loom.bulkhead.adaptive.paused").tag("name", "flexible").counter().count())
                .isZero();
            assertThat(registry.getMeters())
                .filteredOn((meter) -> meter.getId().getName().startsWith("loom.bulkhead.adaptive."))
                .hasSize(4)
                .allSatisfy((meter) -> assertThat(meter.getId().getTags()).containsExactly(Tag.of("name", "flexible")))
                .allSatisfy((meter) -> assertThat(meter.getId().getDescription()).isNotBlank());
        });
    }

    @Test
    void samplesAreTimedAndDropsCounted() {
        this.contextRunner.withPropertyValues(ADAPTIVE).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Bulkhead flexible = context.getBean(BulkheadRegistry.class).bulkhead("flexible");
            // Pauses of its own only: a stall of the test JVM would make the success a held-up one, not timed.
            ownPauses(flexible);
            for (int i = 0; i < 4; i++) {
                assertThat(flexible.tryAcquirePermit()).isTrue();
            }
            long exec = TimeUnit.MILLISECONDS.toNanos(7);
            flexible.onComplete(exec, TimeUnit.SECONDS.toNanos(5), 4, Outcome.DROPPED);
            flexible.onComplete(exec, TimeUnit.SECONDS.toNanos(3), 3, Outcome.DROPPED);
            flexible.onComplete(exec, TimeUnit.MILLISECONDS.toNanos(20), 2, Outcome.SUCCESS);
            // A call that tells nothing about the callee is no sample.
            flexible.onComplete(exec, TimeUnit.MILLISECONDS.toNanos(900), 1, Outcome.IGNORED);
            Timer rtt = registry.get("loom.bulkhead.adaptive.rtt").tag("name", "flexible").timer();
            assertThat(rtt.count()).isEqualTo(3);
            assertThat(rtt.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(8020.0);
            assertThat(rtt.max(TimeUnit.SECONDS)).isEqualTo(5.0);
            assertThat(registry.get("loom.bulkhead.adaptive.drops").tag("name", "flexible").counter().count())
                .isEqualTo(2.0);
            assertThat(registry.get("loom.bulkhead.execution").tag("name", "flexible").timer().count()).isEqualTo(4);
            // The limit gauge follows the algorithm, which backed off on the drops.
            double limit = registry.get("loom.bulkhead.limit").tag("name", "flexible").gauge().value();
            assertThat(limit).isEqualTo(flexible.getLimit()).isLessThan(10.0);
            // A static bulkhead takes no samples and has no adaptive meters.
            Bulkhead callee = context.getBean(BulkheadRegistry.class).bulkhead("callee");
            assertThat(callee.tryAcquirePermit()).isTrue();
            callee.onComplete(exec, exec, 1, Outcome.DROPPED);
            assertThat(registry.find("loom.bulkhead.adaptive.rtt").tag("name", "callee").timer()).isNull();
            assertThat(registry.find("loom.bulkhead.adaptive.drops").tag("name", "callee").counter()).isNull();
        });
    }

    /** Gives {@code bulkhead} pauses of its own instead of those the process's detector sees; returns them. */
    private static CallerPauses ownPauses(Bulkhead bulkhead) throws ReflectiveOperationException {
        CallerPauses pauses = new CallerPauses();
        Field limits = Bulkhead.class.getDeclaredField("limits");
        limits.setAccessible(true);
        Object control = limits.get(bulkhead);
        Field field = control.getClass().getDeclaredField("pauses");
        field.setAccessible(true);
        field.set(control, pauses);
        return pauses;
    }

    @Test
    void successesAPauseOfTheProcessHeldUpAreCountedAndNotTimed() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.contextRunner.withPropertyValues(ADAPTIVE)
            .withBean(PrometheusMeterRegistry.class, () -> prometheus)
            .run((context) -> {
                Bulkhead flexible = context.getBean(BulkheadRegistry.class).bulkhead("flexible");
                CallerPauses pauses = ownPauses(flexible);
                // The process ran nothing from 200 ms ago to 100 ms ago.
                long now = System.nanoTime();
                pauses.paused(now - TimeUnit.MILLISECONDS.toNanos(200), now - TimeUnit.MILLISECONDS.toNanos(100));
                long call = TimeUnit.MILLISECONDS.toNanos(300);
                for (Outcome outcome : List.of(Outcome.SUCCESS, Outcome.SUCCESS, Outcome.DROPPED)) {
                    assertThat(flexible.tryAcquirePermit()).isTrue();
                    flexible.onComplete(call, call, 1, outcome);
                }
                assertThat(prometheus.get("loom.bulkhead.adaptive.paused").tag("name", "flexible").counter().count())
                    .isEqualTo(2.0);
                // Only the drop, a sample as always, was timed.
                assertThat(prometheus.get("loom.bulkhead.adaptive.rtt").tag("name", "flexible").timer().count())
                    .isEqualTo(1);
                assertThat(prometheus.scrape()).contains("loom_bulkhead_adaptive_paused_total{name=\"flexible\"} 2.0");
            });
    }

    @Test
    void aBulkheadRegistryThatOutlivesTheContextStopsFeedingItsMeterRegistry() {
        // The application's own registry, shared beyond one context (a parent context, other code, a cached test).
        BulkheadRegistry shared = BulkheadRegistry.ofDefaults();
        MeterRegistry[] closed = new MeterRegistry[1];
        this.contextRunner.withBean(BulkheadRegistry.class, () -> shared).run((context) -> {
            closed[0] = context.getBean(MeterRegistry.class);
            shared.bulkhead("callee");
        });
        this.contextRunner.withBean(BulkheadRegistry.class, () -> shared).run((context) -> {
            MeterRegistry current = context.getBean(MeterRegistry.class);
            Bulkhead callee = shared.bulkhead("callee");
            callee.acquirePermit();
            callee.onComplete(1_000_000);
            shared.bulkhead("created-later");

            assertThat(current.get("loom.bulkhead.execution").tag("name", "callee").timer().count()).isEqualTo(1);
            assertThat(closed[0].get("loom.bulkhead.execution").tag("name", "callee").timer().count())
                .as("a call made after its context closed, in the closed context's meter registry")
                .isZero();
            assertThat(closed[0].find("loom.bulkhead.limit").tag("name", "created-later").gauge())
                .as("a bulkhead created after its context closed").isNull();
        });
    }

    @Test
    void ceilingGaugeFollowsAWriteOfTheLimit() {
        this.contextRunner.withPropertyValues(ADAPTIVE).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Bulkhead flexible = context.getBean(BulkheadRegistry.class).bulkhead("flexible");
            flexible.changeLimit(30);
            assertThat(registry.get("loom.bulkhead.adaptive.ceiling").tag("name", "flexible").gauge().value())
                .isEqualTo(30.0);
            flexible.changeLimit(6);
            assertThat(registry.get("loom.bulkhead.adaptive.ceiling").tag("name", "flexible").gauge().value())
                .isEqualTo(6.0);
            assertThat(registry.get("loom.bulkhead.limit").tag("name", "flexible").gauge().value()).isEqualTo(6.0);
        });
    }

    @Test
    void adaptiveMetersInPrometheus() {
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        this.contextRunner.withPropertyValues(ADAPTIVE)
            .withBean(PrometheusMeterRegistry.class, () -> prometheus)
            .run((context) -> {
                Bulkhead flexible = context.getBean(BulkheadRegistry.class).bulkhead("flexible");
                assertThat(flexible.tryAcquirePermit()).isTrue();
                flexible.onComplete(1, TimeUnit.MILLISECONDS.toNanos(250), 1, Outcome.DROPPED);
                assertThat(prometheus.scrape()).contains("loom_bulkhead_adaptive_ceiling_calls{name=\"flexible\"} 50.0")
                    .contains("loom_bulkhead_adaptive_rtt_seconds_count{name=\"flexible\"} 1")
                    .contains("loom_bulkhead_adaptive_rtt_seconds_sum{name=\"flexible\"} 0.25")
                    .contains("loom_bulkhead_adaptive_drops_total{name=\"flexible\"} 1.0");
            });
    }

    /** Makes calls while the context starts: two permitted, one rejected. */
    static class StartupCalls implements InitializingBean {

        private final BulkheadRegistry bulkheads;

        private boolean made;

        StartupCalls(BulkheadRegistry bulkheads) {
            this.bulkheads = bulkheads;
        }

        @Override
        public void afterPropertiesSet() {
            Bulkhead callee = this.bulkheads.bulkhead("callee");
            callee.acquirePermit();
            callee.acquirePermit();
            assertThatExceptionOfType(BulkheadRejectedException.class).isThrownBy(callee::acquirePermit);
            callee.onComplete(0);
            callee.onComplete(0);
            this.made = true;
        }
    }

    private static double count(MeterRegistry registry, String outcome, String reason) {
        Meter.Id id = registry.get("loom.bulkhead.calls")
            .tags("name", "callee", "outcome", outcome, "reason", reason)
            .functionCounter()
            .getId();
        return registry.get(id.getName()).tags(id.getTags()).functionCounter().count();
    }
}
