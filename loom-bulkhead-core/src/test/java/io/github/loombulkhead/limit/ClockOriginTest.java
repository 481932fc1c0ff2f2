package io.github.loombulkhead.limit;

import java.util.Arrays;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code System.nanoTime()} may start anywhere, also close enough to {@link Long#MAX_VALUE} to wrap while a service
 * runs: every algorithm must propose exactly the same limits whatever the clock's origin.
 */
class ClockOriginTest {

    private static final long MS = 1_000_000;

    private static final long S = 100 * MS;

    @ParameterizedTest
    @EnumSource(AdaptiveLimitConfig.Algorithm.class)
    void theSameCallsGiveTheSameLimitsFromAnyClockOrigin(AdaptiveLimitConfig.Algorithm algorithm) {
        int[] fromZero = run(algorithm, 0);
        // A start, an overload with timeouts when the capacity halves, a return when it comes back.
        assertThat(Arrays.stream(fromZero).max().orElseThrow()).isGreaterThan(190);
        assertThat(Arrays.stream(fromZero).skip(fromZero.length / 2).min().orElseThrow()).isLessThan(130);
        // The clock wraps past Long.MAX_VALUE while the capacity is halved.
        assertThat(run(algorithm, Long.MAX_VALUE - 60 * S)).containsExactly(fromZero);
        assertThat(run(algorithm, Long.MIN_VALUE + 1)).containsExactly(fromZero);
        assertThat(run(algorithm, -7 * S)).containsExactly(fromZero);
    }

    private static int[] run(AdaptiveLimitConfig.Algorithm algorithm, long origin) {
        LimitAlgorithm limit = LimitAlgorithm.of(AdaptiveLimitConfig.custom().algorithm(algorithm).build());
        ClosedLoop loop = new ClosedLoop(limit, 200, S).startingAt(origin).jitter(0.05, 11).timeoutNanos(167 * MS);
        loop.runRtts(40).capacity(100).runRtts(40).capacity(200).runRtts(40);
        assertThat(loop.drops()).isPositive();
        return loop.limits();
    }
}
