package io.github.loombulkhead.redis;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The recent peak on a simulated clock (nanoseconds), windows of 100. */
class RecentPeakTest {

    @Test
    void keepsThePeakOfThisWindowAndTheOneBefore() {
        RecentPeak peak = new RecentPeak(100, 0);
        assertThat(peak.record(5, 10)).isEqualTo(5);
        assertThat(peak.record(1, 90)).isEqualTo(5);
        // A new window: the 5 of the one before still counts.
        assertThat(peak.record(1, 110)).isEqualTo(5);
        assertThat(peak.record(2, 150)).isEqualTo(5);
        // Two windows on, only what came after the burst.
        assertThat(peak.record(1, 215)).isEqualTo(2);
        assertThat(peak.record(1, 320)).isEqualTo(1);
    }

    @Test
    void aWindowWithoutALookCountsAsIdle() {
        RecentPeak peak = new RecentPeak(100, 0);
        peak.record(7, 50);
        // More than a whole window passed since the window of the 7 ended.
        assertThat(peak.record(1, 260)).isEqualTo(1);
    }

    @Test
    void withoutAWindowOnlyTheDemandNowCounts() {
        RecentPeak peak = new RecentPeak(0, 0);
        assertThat(peak.record(4, 0)).isEqualTo(4);
        assertThat(peak.record(1, 0)).isEqualTo(1);
        assertThat(peak.record(0, 5)).isZero();
    }
}
