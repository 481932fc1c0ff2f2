package io.github.loombulkhead.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** The share of calls that fail whatever the load, as {@code aimd} learns it. */
class BackgroundDropsTest {

    private static void finish(BackgroundDrops background, int calls, int drops, int inflight) {
        for (int i = 0; i < calls; i++) {
            background.finished(i < drops, inflight);
        }
    }

    @Test
    void countsNothingBeforeTheFirstOverloadWhoseStartIsKnown() {
        BackgroundDrops background = new BackgroundDrops();
        finish(background, 100, 10, 1);
        assertThat(background.rate()).isZero();
        assertThat(background.tolerated(100)).isZero();
        // The start's overshoot and a collapse say nothing about where the callee is clear of overload.
        background.overloadUnknown();
        finish(background, 100, 10, 1);
        assertThat(background.rate()).isZero();
    }

    @Test
    void countsOnlyTheCallsStartedWellBelowWhereTheLastOverloadBegan() {
        BackgroundDrops background = new BackgroundDrops();
        background.overloadedAt(100);
        // 80 % of the limit the decrease fell from and more: these calls may have failed from the overload.
        finish(background, 100, 50, 80);
        assertThat(background.rate()).isZero();
        finish(background, 100, 1, 79);
        assertThat(background.rate()).isEqualTo(0.01);
        // A round of 100 calls may then have 1 drop and three standard deviations more: 1 + 3 × 1.
        assertThat(background.tolerated(100)).isCloseTo(4.0, within(1e-9));
        assertThat(background.tolerated(400)).isCloseTo(4 + 3 * 2, within(1e-9));
        // A start or a collapse stops the counting until the next overload whose start is known.
        background.overloadUnknown();
        finish(background, 100, 100, 10);
        assertThat(background.rate()).isEqualTo(0.01);
    }

    @Test
    void aShareFromFewCallsDoesNotCountAndNoShareAboveTwoPercentIsBackground() {
        BackgroundDrops background = new BackgroundDrops();
        background.overloadedAt(100);
        finish(background, BackgroundDrops.MIN_CALLS - 1, 1, 10);
        assertThat(background.rate()).as("one drop among the first calls").isZero();
        finish(background, 101 - BackgroundDrops.MIN_CALLS, 0, 10);
        assertThat(background.rate()).as("1 of 100").isEqualTo(0.01);
        finish(background, 100, 25, 10);
        assertThat(background.rate()).as("26 of 200, more than 2 %").isEqualTo(0.02);
    }

    @Test
    void olderCallsCountLessAndLess() {
        BackgroundDrops background = new BackgroundDrops();
        background.overloadedAt(100);
        // 1 % of the first 2,000 calls failed: both counts are halved at the 2,000th (1,000 calls, 10 drops).
        finish(background, BackgroundDrops.HORIZON, 20, 10);
        assertThat(background.rate()).isEqualTo(0.01);
        // 1,000 calls without a drop: halved again at 2,000, so 5 drops in 1,000 calls, not 20 in 3,000.
        finish(background, 1000, 0, 10);
        assertThat(background.rate()).isEqualTo(0.005);
    }
}
