package io.github.loombulkhead.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gradient's growth steps, window by window: a probe doubles its step while it stays below 50 % per RTT and then
 * ends; the return to the target ends at the target; a hold is not undone by growth earned before it.
 */
class GrowthTest {

    private final Growth growth = new Growth(AdaptiveLimitConfig.ofDefaults());

    @Test
    void aProbeDoublesItsStepPerQuietWindowAndEndsBeforeFiftyPercentPerRtt() {
        this.growth.restart(200, 100);
        assertThat(this.growth.perCall()).isEqualTo(0.05);
        double[] steps = new double[6];
        for (int window = 0; window < steps.length; window++) {
            this.growth.windowQuiet(false, 200, 100, true);
            steps[window] = this.growth.perCall();
        }
        assertThat(steps).containsExactly(0.1, 0.2, 0.4, 0.05, 0.05, 0.05);
        // A window that is not quiet ends the run of probing windows: the next one starts a new probe.
        this.growth.windowQuiet(false, 200, 100, false);
        assertThat(this.growth.perCall()).isEqualTo(0.05);
        this.growth.windowQuiet(false, 200, 100, true);
        assertThat(this.growth.perCall()).isEqualTo(0.1);
    }

    @Test
    void theReturnToTheTargetEndsWhereTheLimitReachesIt() {
        this.growth.restart(60, 100);
        // A call that started with 100 in flight finished without queueing: the headroom allows 131.
        this.growth.quiet(100);
        assertThat(this.growth.perCall()).isEqualTo(0.5);
        assertThat(this.growth.grow(60, 30, 100)).isEqualTo(90);
        assertThat(this.growth.perCall()).isEqualTo(0.5);
        // Capped by the target while below it; the step above it is the increase ratio.
        assertThat(this.growth.grow(90, 30, 100)).isEqualTo(100);
        assertThat(this.growth.perCall()).isEqualTo(0.05);
    }

    @Test
    void growthEarnedBeforeAHoldDoesNotEndTheHold() {
        this.growth.restart(60, 100);
        this.growth.quiet(100);
        this.growth.hold();
        assertThat(this.growth.grow(95, 10, 100)).isEqualTo(100);
        assertThat(this.growth.perCall()).isZero();
    }
}
