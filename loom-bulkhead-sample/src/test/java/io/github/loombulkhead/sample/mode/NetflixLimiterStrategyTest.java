package io.github.loombulkhead.sample.mode;

import java.util.concurrent.TimeUnit;

import com.netflix.concurrency.limits.Limit;
import io.github.loombulkhead.sample.Mode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The Netflix algorithms start from their own defaults and never go past the adaptive max limit. */
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
