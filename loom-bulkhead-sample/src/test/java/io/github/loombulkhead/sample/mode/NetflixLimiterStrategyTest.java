package io.github.loombulkhead.sample.mode;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limiter.BlockingLimiter;
import io.github.loombulkhead.sample.Mode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Netflix algorithms start from their own defaults and never go past the adaptive max limit; the wait for a
 * permit is the mode's max wait, within what {@link BlockingLimiter} accepts.
 */
class NetflixLimiterStrategyTest {

    private static final long RTT = TimeUnit.MILLISECONDS.toNanos(10);

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = { "NETFLIX_GRADIENT2", "NETFLIX_VEGAS", "NETFLIX_AIMD" })
    void startsAtItsDefaultAndGrowsToTheMaxLimitAndNoFurther(Mode mode) {
        Limit limit = NetflixLimiterStrategy.algorithm(mode, 30);
        assertThat(limit.getLimit()).isEqualTo(NetflixLimiterStrategy.DEFAULT_INITIAL_LIMIT);
        int highest = feedFullLoad(limit);
        assertThat(highest).as(mode + " highest limit").isEqualTo(30);
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = { "NETFLIX_GRADIENT2", "NETFLIX_VEGAS", "NETFLIX_AIMD" })
    void aMaxLimitBelowTheDefaultInitialLimitIsHonouredFromTheStart(Mode mode) {
        Limit limit = NetflixLimiterStrategy.algorithm(mode, 5);
        assertThat(limit.getLimit()).isEqualTo(5);
        assertThat(feedFullLoad(limit)).as(mode + " highest limit").isEqualTo(5);
    }

    @ParameterizedTest
    @EnumSource(value = Mode.class, names = { "NETFLIX_GRADIENT2", "NETFLIX_VEGAS", "NETFLIX_AIMD" })
    void aMaxWaitOfAnHourOrMoreWaitsAsLongAsTheBlockingLimiterAllows(Mode mode) {
        // A long scenario (e.g. the reference scale with a callee down to 4 workers) gives a mode deadline over an
        // hour; BlockingLimiter refuses a timeout of an hour or more.
        for (Duration maxWait : new Duration[] { BlockingLimiter.MAX_TIMEOUT, Duration.ofMinutes(71) }) {
            AtomicInteger calls = new AtomicInteger();
            try (NetflixLimiterStrategy strategy = new NetflixLimiterStrategy(mode, 10, maxWait)) {
                assertThat(strategy.maxWait()).isEqualTo(BlockingLimiter.MAX_TIMEOUT.minusMillis(1));
                CompletableFuture.runAsync(strategy.decorate(calls::incrementAndGet), strategy.executor()).join();
            }
            assertThat(calls).hasValue(1);
        }
        try (NetflixLimiterStrategy strategy = new NetflixLimiterStrategy(mode, 10, Duration.ofMinutes(59))) {
            assertThat(strategy.maxWait()).isEqualTo(Duration.ofMinutes(59));
        }
    }

    /** Feeds samples of a steady, fully used callee; returns the highest limit seen. */
    private static int feedFullLoad(Limit limit) {
        int highest = limit.getLimit();
        for (int i = 0; i < 10_000; i++) {
            limit.onSample(i * RTT, RTT, limit.getLimit(), false);
            highest = Math.max(highest, limit.getLimit());
        }
        return highest;
    }
}
