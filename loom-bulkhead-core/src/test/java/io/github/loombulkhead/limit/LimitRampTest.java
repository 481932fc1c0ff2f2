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
    void oneSlowCallDoesNotHoldBackTheRisesEarnedByFastOnesAfterIt() {
        LimitRamp ramp = new LimitRamp(10);
        // An executor task that ran for a minute earns one permit, released over 30 s.
        ramp.propose(11, 0, 60_000 * MS);
        // Forty tasks of 10 ms, 5 ms apart, then earn forty more, each released over 5 ms.
        for (int i = 1; i <= 40; i++) {
            ramp.propose(11 + i, i * STEP, 10 * MS);
        }
        assertThat(ramp.getTarget()).isEqualTo(51);
        assertThat(ramp.advance(41 * STEP + 10 * MS)).isEqualTo(50);
        assertThat(ramp.advance(30_000 * MS)).isEqualTo(51);
    }

    @Test
    void theNextStepIsTheEarliestAlsoAcrossAClockWrap() {
        long beforeWrap = Long.MAX_VALUE - MS;
        LimitRamp ramp = new LimitRamp(100);
        // First step 5 ms later: past Long.MAX_VALUE, so a negative nanoTime.
        ramp.propose(108, beforeWrap, RTT);
        // A faster rise half a millisecond later: its first step, 0.25 ms after it, comes before the wrap.
        ramp.propose(116, beforeWrap + MS / 2, 4 * MS);
        assertThat(ramp.nextStepNanos()).isEqualTo(Long.MAX_VALUE - MS / 4);
        // One of the first rise's eight steps, all eight of the second.
        assertThat(ramp.advance(beforeWrap + 6 * MS)).isEqualTo(109);
    }

    @Test
    void risesOfSimilarRoundTripsStillShareTheirSteps() {
        LimitRamp ramp = new LimitRamp(100);
        ramp.propose(108, 0, RTT);
        // A call twice as fast is released at the slower pace of the rise it joins.
        ramp.propose(116, STEP - 1, RTT / 2);
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
