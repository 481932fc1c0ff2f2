package io.github.loombulkhead.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** How a rise is spread over half a round trip and a decrease applies at once, in virtual time. */
class LimitRampTest {

    private static final long MS = 1_000_000;

    private static final long RTT = 80 * MS;

    /** Steps of a rise earned by an 80 ms call: half of it in 8 steps, 5 ms apart. */
    private static final long STEP = 5 * MS;

    @Test
    void aRiseIsReleasedInEightEqualStepsOverHalfTheRoundTrip() {
        LimitRamp ramp = new LimitRamp(100);
        assertThat(ramp.propose(180, 0, RTT)).isEqualTo(100);
        assertThat(ramp.getTarget()).isEqualTo(180);
        assertThat(ramp.nextStepNanos()).isEqualTo(STEP);
        assertThat(ramp.advance(STEP - 1)).isEqualTo(100);
        for (int step = 1; step <= LimitRamp.STEPS; step++) {
            assertThat(ramp.advance(step * STEP)).isEqualTo(100 + 10 * step);
        }
        assertThat(ramp.getLimit()).isEqualTo(180);
        assertThat(ramp.nextStepNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void stepsMissedByALateTimerAreReleasedTogether() {
        LimitRamp ramp = new LimitRamp(10);
        ramp.propose(18, 0, RTT);
        assertThat(ramp.advance(3 * STEP)).isEqualTo(13);
        assertThat(ramp.advance(100 * STEP)).isEqualTo(18);
    }

    @Test
    void aDecreaseAppliesAtOnceAndDropsWhatWasStillToBeReleased() {
        LimitRamp ramp = new LimitRamp(100);
        ramp.propose(180, 0, RTT);
        ramp.advance(2 * STEP);
        assertThat(ramp.getLimit()).isEqualTo(120);
        assertThat(ramp.propose(90, 2 * STEP, RTT)).isEqualTo(90);
        assertThat(ramp.getTarget()).isEqualTo(90);
        assertThat(ramp.nextStepNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(ramp.advance(100 * STEP)).isEqualTo(90);
    }

    @Test
    void aLowerTargetAboveTheLimitTrimsTheNewestRiseFirst() {
        LimitRamp ramp = new LimitRamp(100);
        ramp.propose(116, 0, RTT);
        ramp.propose(132, 2 * STEP, RTT);
        assertThat(ramp.propose(120, 2 * STEP, RTT)).isEqualTo(104);
        assertThat(ramp.getTarget()).isEqualTo(120);
        assertThat(ramp.advance(100 * STEP)).isEqualTo(120);
    }

    @Test
    void risesProposedWithinOneStepShareTheirSteps() {
        LimitRamp ramp = new LimitRamp(100);
        ramp.propose(108, 0, RTT);
        ramp.propose(116, STEP - 1, RTT);
        assertThat(ramp.nextStepNanos()).isEqualTo(STEP);
        assertThat(ramp.advance(STEP)).isEqualTo(102);
        assertThat(ramp.advance(LimitRamp.STEPS * STEP)).isEqualTo(116);
    }

    @Test
    void aRiseEarnedByACallUnderTwoMillisecondsAppliesAtOnce() {
        LimitRamp ramp = new LimitRamp(10);
        assertThat(ramp.propose(20, 0, 2 * LimitRamp.MIN_SPREAD_NANOS - 1)).isEqualTo(20);
        assertThat(ramp.nextStepNanos()).isEqualTo(Long.MAX_VALUE);
        assertThat(ramp.propose(30, 0, 2 * LimitRamp.MIN_SPREAD_NANOS)).isEqualTo(20);
        assertThat(ramp.getTarget()).isEqualTo(30);
    }

    @Test
    void theSameProposalAgainChangesNothing() {
        LimitRamp ramp = new LimitRamp(100);
        ramp.propose(180, 0, RTT);
        ramp.propose(180, STEP / 2, RTT);
        ramp.propose(180, 3 * STEP, RTT);
        assertThat(ramp.getLimit()).isEqualTo(130);
        assertThat(ramp.getTarget()).isEqualTo(180);
        assertThat(ramp.advance(LimitRamp.STEPS * STEP)).isEqualTo(180);
    }
}
