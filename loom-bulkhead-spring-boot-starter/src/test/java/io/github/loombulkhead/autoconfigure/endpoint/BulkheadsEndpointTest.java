package io.github.loombulkhead.autoconfigure.endpoint;

import java.time.Duration;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.BulkheadRegistry;
import io.github.loombulkhead.autoconfigure.endpoint.BulkheadsEndpoint.BulkheadDescriptor;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.AdaptiveLimitConfig.Algorithm;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The {@code bulkheads} endpoint's operations, without a web layer. */
class BulkheadsEndpointTest {

    private final BulkheadRegistry registry = BulkheadRegistry.builder()
        .config("callee", BulkheadConfig.custom().maxConcurrentCalls(3).maxWaitDuration(Duration.ofSeconds(5)).build())
        .config("flexible", BulkheadConfig.custom()
            .maxConcurrentCalls(50)
            .adaptive(AdaptiveLimitConfig.custom().algorithm(Algorithm.AIMD).initialLimit(10).minLimit(2).build())
            .build())
        .config("gradual", BulkheadConfig.custom()
            .maxConcurrentCalls(40)
            .adaptive(AdaptiveLimitConfig.custom().algorithm(Algorithm.GRADIENT).initialLimit(8).minLimit(4).build())
            .build())
        .build();

    private final BulkheadsEndpoint endpoint = new BulkheadsEndpoint(this.registry);

    @Test
    void readsEveryBulkheadWithConfigAndState() {
        Bulkhead callee = this.registry.bulkhead("callee");
        this.registry.bulkhead("another");
        callee.acquirePermit();
        assertThat(this.endpoint.bulkheads().bulkheads()).containsOnlyKeys("another", "callee");
        BulkheadDescriptor descriptor = this.endpoint.bulkheads().bulkheads().get("callee");
        assertThat(descriptor.limit()).isEqualTo(3);
        assertThat(descriptor.active()).isEqualTo(1);
        assertThat(descriptor.waiting()).isZero();
        assertThat(descriptor.availablePermits()).isEqualTo(2);
        assertThat(descriptor.permitted()).isEqualTo(1);
        assertThat(descriptor.config().maxWaitDuration()).isEqualTo("PT5S");
        assertThat(descriptor.config().queueCapacity()).isEqualTo(10_000);
        assertThat(descriptor.rejectedByReason()).containsOnlyKeys("queue-full", "wait-timed-out", "shut-down",
                "interrupted", "cluster-unavailable");
        callee.releasePermit();
    }

    @Test
    void readsOneBulkheadOrNothing() {
        this.registry.bulkhead("callee");
        assertThat(this.endpoint.bulkhead(path("callee")).name()).isEqualTo("callee");
        assertThat(this.endpoint.bulkhead(path("missing"))).isNull();
    }

    @Test
    void changesLimitAndMaxWait() {
        this.registry.bulkhead("callee");
        BulkheadDescriptor changed = this.endpoint.update(path("callee"), 7, Duration.ofSeconds(2));
        assertThat(changed.limit()).isEqualTo(7);
        assertThat(changed.config().maxConcurrentCalls()).isEqualTo(7);
        assertThat(changed.config().maxWaitDuration()).isEqualTo("PT2S");
        assertThat(changed.change()).isEqualTo("maxConcurrentCalls (the limit) set to 7; maxWaitDuration set to PT2S");
    }

    @Test
    void aStaticBulkheadIsShownAsSuch() {
        this.registry.bulkhead("callee");
        BulkheadDescriptor callee = this.endpoint.bulkhead(path("callee"));
        assertThat(callee.adaptive()).isFalse();
        assertThat(callee.algorithm()).isNull();
        assertThat(callee.change()).isNull();
    }

    @Test
    void readsAnAdaptiveBulkheadWithItsAlgorithmLimitAndCeiling() {
        Bulkhead gradual = this.registry.bulkhead("gradual");
        gradual.acquirePermit();
        gradual.onComplete(1_000_000, 2_000_000, 1, Outcome.SUCCESS);
        BulkheadDescriptor descriptor = this.endpoint.bulkheads().bulkheads().get("gradual");
        assertThat(descriptor.adaptive()).isTrue();
        assertThat(descriptor.limit()).isEqualTo(gradual.getLimit());
        assertThat(descriptor.config().maxConcurrentCalls()).isEqualTo(40);
        assertThat(descriptor.algorithm().name()).isEqualTo("gradient");
        assertThat(descriptor.algorithm().proposedLimit()).isEqualTo(gradual.getLimitAlgorithm().getLimit());
        assertThat(descriptor.algorithm().minLimit()).isEqualTo(4);
        assertThat(descriptor.algorithm().ceiling()).isEqualTo(40);
        assertThat(descriptor.algorithm().estimates()).isNotEmpty()
            .isEqualTo(gradual.getLimitAlgorithm().getEstimates());
        assertThat(descriptor.change()).isNull();
        this.registry.bulkhead("flexible");
        assertThat(this.endpoint.bulkhead(path("flexible")).algorithm().name()).isEqualTo("aimd");
    }

    @Test
    void aWriteOfTheLimitSetsTheCeilingOfAnAdaptiveBulkheadAndSaysSo() {
        Bulkhead flexible = this.registry.bulkhead("flexible");
        BulkheadDescriptor changed = this.endpoint.update(path("flexible"), 30, null);
        assertThat(changed.config().maxConcurrentCalls()).isEqualTo(30);
        assertThat(changed.algorithm().ceiling()).isEqualTo(30);
        // The algorithm restarted from its current limit, which was below the new ceiling.
        assertThat(changed.limit()).isEqualTo(10);
        assertThat(changed.adaptive()).isTrue();
        assertThat(changed.change()).isEqualTo("maxConcurrentCalls is the ceiling of this adaptive bulkhead: set to "
                + "30; the aimd algorithm restarted at limit 10 and finds the limit between 2 and 30");
        assertThat(flexible.isAdaptive()).isTrue();
        assertThat(flexible.getConfig().getAdaptive().getMaxLimit()).isEqualTo(30);
    }

    @Test
    void aCeilingBelowTheCurrentLimitLowersTheLimitToIt() {
        Bulkhead flexible = this.registry.bulkhead("flexible");
        // Below the configured initial limit (10), which does not matter once the bulkhead runs.
        BulkheadDescriptor changed = this.endpoint.update(path("flexible"), 6, Duration.ofSeconds(1));
        assertThat(changed.limit()).isEqualTo(6);
        assertThat(changed.config().maxConcurrentCalls()).isEqualTo(6);
        assertThat(changed.change()).isEqualTo("maxConcurrentCalls is the ceiling of this adaptive bulkhead: set to "
                + "6; the aimd algorithm restarted at limit 6 and finds the limit between 2 and 6; maxWaitDuration set "
                + "to PT1S");
        assertThat(flexible.getLimit()).isEqualTo(6);
    }

    @Test
    void aCeilingBelowTheMinimumOfAnAdaptiveBulkheadChangesNothing() {
        Bulkhead flexible = this.registry.bulkhead("flexible");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.update(path("flexible"), 1, Duration.ofSeconds(1)))
            .withMessage("Bulkhead 'flexible' not changed: maxConcurrentCalls is the ceiling of its adaptive limit and "
                    + "must be at least its minLimit 2 but was 1");
        assertThat(flexible.getConfig().getMaxConcurrentCalls()).isEqualTo(50);
        assertThat(flexible.getLimit()).isEqualTo(10);
        assertThat(flexible.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(60));
    }

    @Test
    void invalidLimitChangesNothing() {
        Bulkhead callee = this.registry.bulkhead("callee");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.update(path("callee"), 0, Duration.ofSeconds(1)))
            .withMessage("Bulkhead 'callee' not changed: maxConcurrentCalls must be at least 1 but was 0");
        assertThat(callee.getLimit()).isEqualTo(3);
        assertThat(callee.getConfig().getMaxWaitDuration()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void negativeMaxWaitChangesNothing() {
        Bulkhead callee = this.registry.bulkhead("callee");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.update(path("callee"), 8, Duration.ofSeconds(-1)))
            .withMessageContaining("maxWaitDuration must not be negative");
        assertThat(callee.getLimit()).isEqualTo(3);
    }

    @Test
    void unknownBulkheadAndEmptyChangeAreRejected() {
        this.registry.bulkhead("callee");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.update(path("missing"), 4, null))
            .satisfies((ex) -> assertThat(ex.getReason()).isEqualTo(
                    "No bulkhead named 'missing'; existing bulkheads: [callee]"));
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.update(path("callee"), null, null))
            .withMessageStartingWith("Nothing to change");
    }

    @Test
    void findsANameWithSlashesFromTheSegmentsTheWebLayerPassesOn() {
        this.registry.bulkhead("out:https://api.example.com:443");
        // GET /actuator/bulkheads/out:https://api.example.com:443: split at slashes, empty segments dropped.
        assertThat(this.endpoint.bulkhead(path("out:https:", "api.example.com:443")).name())
            .isEqualTo("out:https://api.example.com:443");
        assertThat(this.endpoint.update(path("out:https:", "api.example.com:443"), 9, null).limit()).isEqualTo(9);
        assertThat(this.registry.bulkhead("out:https://api.example.com:443").getLimit()).isEqualTo(9);
        assertThat(this.endpoint.bulkhead(path("out:https:", "other.example.com:443"))).isNull();
    }

    @Test
    void anExactNameWinsAndNamesDifferingOnlyInRepeatedSlashesAreRefused() {
        this.registry.bulkhead("a/b");
        this.registry.bulkhead("a//b");
        this.registry.bulkhead("c//d");
        this.registry.bulkhead("c///d");
        assertThat(this.endpoint.bulkhead(path("a", "b")).name()).isEqualTo("a/b");
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> this.endpoint.bulkhead(path("c", "d")))
            .withMessage("'c/d' matches several bulkheads [c///d, c//d]; they differ only in repeated slashes, "
                    + "which a URL path cannot keep");
    }

    /** A name's path segments, as the web layer passes them to the endpoint. */
    private static String[] path(String... segments) {
        return segments;
    }
}
