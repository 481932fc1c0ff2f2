package io.github.loombulkhead.redis;

import java.time.Duration;

import io.github.loombulkhead.Bulkhead;
import io.github.loombulkhead.BulkheadConfig;
import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** Bad configuration fails at once, naming what is wrong and how to fix it. */
@ExtendWith(RedisServerExtension.class)
class ClusterConfigTest {

    @Test
    void aLeaseShorterThan300MillisIsRefused() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> ClusterConfig.custom().leaseDuration(Duration.ofMillis(100)).build())
            .withMessage("leaseDuration must be at least 300 ms (leases are renewed three times per lease) but was PT0.1S");
    }

    @Test
    void theSettlePeriodAfterALostStateOutlastsTheRenewalOfAnyProcessAndTheOwnLease() {
        assertThat(ClusterConfig.custom().leaseDuration(Duration.ofMillis(300)).build().settlePeriod())
            .isEqualTo(Duration.ofSeconds(2));
        assertThat(ClusterConfig.custom().leaseDuration(Duration.ofSeconds(3)).build().renewPeriod())
            .isEqualTo(Duration.ofSeconds(1));
        assertThat(ClusterConfig.ofDefaults().settlePeriod()).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void aNegativeIdleLingerIsRefusedAndZeroAllowed() {
        assertThatIllegalArgumentException()
            .isThrownBy(() -> ClusterConfig.custom().idleLinger(Duration.ofMillis(-5)).build())
            .withMessage("idleLinger must be 0 or more (0 gives idle leases back at once) but was PT-0.005S");
        assertThat(ClusterConfig.custom().idleLinger(Duration.ZERO).build().getIdleLinger()).isZero();
        assertThat(ClusterConfig.ofDefaults().getIdleLinger()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aKeyPrefixWithBracesIsRefused(RedisServer redis) {
        LettuceConnectionFactory factory = redis.connectionFactory();
        try {
            assertThatIllegalArgumentException().isThrownBy(() -> ClusterBulkheads.create(factory, "app:{prod}"))
                .withMessage("cluster key prefix must be non-blank and free of braces (they are added around the "
                        + "bulkhead name) but was 'app:{prod}'");
        }
        finally {
            factory.destroy();
        }
    }

    @Test
    void aBulkheadThatCannotWaitIsRefused(RedisServer redis) {
        LettuceConnectionFactory factory = redis.connectionFactory();
        try (ClusterBulkheads cluster = ClusterBulkheads.create(factory, "test")) {
            Bulkhead noWait = new Bulkhead("orders", BulkheadConfig.custom().maxWaitDuration(Duration.ZERO).build());
            assertThatIllegalArgumentException().isThrownBy(() -> cluster.attach(noWait, ClusterConfig.ofDefaults()))
                .withMessageStartingWith("Bulkhead 'orders' cannot wait (queueCapacity 10000, maxWaitDuration PT0S)")
                .withMessageEndingWith("allow at least one waiting call and a wait of a few milliseconds");
        }
        finally {
            factory.destroy();
        }
    }

    @Test
    void aSecondAttachOfANameIsRefusedAndTheRefusedBulkheadKeepsItsOwnLimit(RedisServer redis) {
        LettuceConnectionFactory factory = redis.connectionFactory();
        try (ClusterBulkheads cluster = ClusterBulkheads.create(factory, "test")) {
            Bulkhead first = new Bulkhead("orders", BulkheadConfig.custom().maxConcurrentCalls(5).build());
            Bulkhead second = new Bulkhead("orders", BulkheadConfig.custom().maxConcurrentCalls(5).build());
            cluster.attach(first, ClusterConfig.ofDefaults());
            String refusal = "Bulkhead 'orders' already has a cluster limit; attach one bulkhead per name and share it "
                    + "(a BulkheadRegistry returns the same bulkhead for a name)";
            assertThatIllegalArgumentException().isThrownBy(() -> cluster.attach(second, ClusterConfig.ofDefaults()))
                .withMessage(refusal);
            assertThatIllegalArgumentException().isThrownBy(() -> cluster.attach(first, ClusterConfig.ofDefaults()))
                .withMessage(refusal);
            // Not leased to a cluster bulkhead that never runs: its five permits are its own, at once.
            assertThat(second.isLimitLeased()).isFalse();
            assertThat(second.getLimit()).isEqualTo(5);
            for (int i = 0; i < 5; i++) {
                assertThat(second.tryAcquirePermit()).isTrue();
            }
            assertThat(second.tryAcquirePermit()).isFalse();
            assertThat(cluster.find("orders")).map(ClusterBulkhead::getBulkhead).containsSame(first);
        }
        finally {
            factory.destroy();
        }
    }

    @Test
    void anAdaptiveBulkheadIsRefused(RedisServer redis) {
        LettuceConnectionFactory factory = redis.connectionFactory();
        try (ClusterBulkheads cluster = ClusterBulkheads.create(factory, "test")) {
            Bulkhead adaptive = new Bulkhead("orders", BulkheadConfig.custom()
                .adaptive(AdaptiveLimitConfig.custom().build())
                .build());
            assertThatIllegalArgumentException().isThrownBy(() -> cluster.attach(adaptive, ClusterConfig.ofDefaults()))
                .withMessage("Bulkhead 'orders' has an adaptive limit, which a cluster limit does not support yet: "
                        + "remove its adaptive settings or disable cluster");
        }
        finally {
            factory.destroy();
        }
    }
}
