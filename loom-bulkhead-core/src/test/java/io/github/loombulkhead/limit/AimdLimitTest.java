package io.github.loombulkhead.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The AIMD algorithm, fed by hand and in a deterministic closed loop (virtual time). */
class AimdLimitTest {

    private static final long MS = 1_000_000;

    private static final long S = 100 * MS;

    private static LimitAlgorithm aimd(AdaptiveLimitConfig.Builder config) {
        return LimitAlgorithm.of(config.algorithm(AdaptiveLimitConfig.Algorithm.AIMD).build());
    }

    private static LimitAlgorithm aimd() {
        return aimd(AdaptiveLimitConfig.custom());
    }

    @Test
    void growsLikeSlowStartUntilTheFirstDropThenHalves() {
        // From a start well below the callee's 200 workers, so that the start has room to show.
        ClosedLoop loop = new ClosedLoop(aimd(AdaptiveLimitConfig.custom().initialLimit(20)), 200, S)
            .timeoutNanos(167 * MS);
        int previous = loop.limit();
        int peak = previous;
        while (loop.drops() == 0) {
            loop.runRtts(1);
            if (loop.drops() == 0 && previous < 150) {
                // Below the callee's 200 workers every call returns in one service time.
                assertThat(loop.limit()).isGreaterThanOrEqualTo((int) (previous * 1.25));
            }
            peak = Math.max(peak, loop.limit());
            previous = loop.limit();
        }
        assertThat(loop.limit()).isBetween((int) (peak * 0.45), (int) (peak * 0.55));
    }

    @Test
    void fallsByTheBackoffRatioOncePerRoundWhateverTheNumberOfDrops() {
        LimitAlgorithm algorithm = aimd(AdaptiveLimitConfig.custom().initialLimit(100));
        algorithm.onSample(0, S, 100, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).as("first drop while starting halves").isEqualTo(50);
        for (int i = 0; i < 100; i++) {
            // One drop per success: the overload that the decrease already answered.
            algorithm.onSample(i, S, 100, (i % 2 == 0) ? Outcome.SUCCESS : Outcome.DROPPED);
        }
        assertThat(algorithm.getLimit()).as("calls that started before the decrease").isEqualTo(50);
        algorithm.onSample(2 * S, S, 50, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(37);
        algorithm.onSample(4 * S, S, 37, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(28);
    }

    @Test
    void fallsToAQuarterAtOnceWhenNearlyEveryCallFailsThenReturnsWithinTwoRtts() {
        // A callee whose queue holds calls their callers gave up on: every new call waits behind them and times out
        // too. Half a limit's worth of calls with more than three drops per success is enough to tell, even calls
        // that started before the last decrease.
        LimitAlgorithm algorithm = aimd(AdaptiveLimitConfig.custom().initialLimit(100));
        algorithm.onSample(0, S, 100, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(50);
        for (int i = 0; i < 24; i++) {
            algorithm.onSample(i, S, 100, Outcome.DROPPED);
        }
        assertThat(algorithm.getLimit()).as("fewer calls than half the limit decide nothing").isEqualTo(50);
        algorithm.onSample(24, S, 100, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(12);
        for (int i = 0; i < 100; i++) {
            algorithm.onSample(25 + i, S, 100, Outcome.DROPPED);
        }
        assertThat(algorithm.getLimit()).as("the calls sent before the collapse was seen fail as expected")
            .isEqualTo(12);
        long now = 2 * S;
        for (int rtt = 0; rtt < 2; rtt++) {
            // One RTT's worth of calls, each with the whole limit in use; a permit the limit gains is used at once.
            for (int i = 0; i < algorithm.getLimit(); i++) {
                algorithm.onSample(now + i, S, algorithm.getLimit(), Outcome.SUCCESS);
            }
            now += 2 * S;
        }
        // At least where a plain decrease would have gone (0.75 × 50), not past the limit the collapse fell from; the
        // additive step alone (5 % of 12 per RTT) would be at 14.
        assertThat(algorithm.getLimit()).isBetween(37, 50);
    }

    @Test
    void callsSentBeforeACollapseDoNotCountTowardTheNextOne() {
        LimitAlgorithm algorithm = aimd(AdaptiveLimitConfig.custom().initialLimit(100));
        AbandonedQueue.collapse(algorithm, 1);
        assertThat(algorithm.getLimit()).as("collapsed").isEqualTo(12);
        // A plain decrease (0.75 × 12.5), not a second collapse to a quarter (3).
        AbandonedQueue.firstSentAfterFails(algorithm);
        assertThat(algorithm.getLimit()).isEqualTo(9);
        // Nor after that plain decrease: calls sent before the collapse that time out only now.
        AbandonedQueue.sentBeforeFail(algorithm, 5 * S);
        assertThat(algorithm.getLimit()).isEqualTo(9);
    }

    @Test
    void addsTheIncreaseRatioOfTheLastDecreasedLimitPerRtt() {
        LimitAlgorithm algorithm = aimd(AdaptiveLimitConfig.custom().initialLimit(200));
        algorithm.onSample(0, S, 200, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(100);
        long now = 2 * S;
        // One RTT's worth of calls, all with the whole limit in use: 5 % of 100 = 5 permits.
        for (int i = 0; i < 100; i++) {
            algorithm.onSample(now + i, S, algorithm.getLimit(), Outcome.SUCCESS);
        }
        assertThat(algorithm.getLimit()).isBetween(104, 105);
        // Calls with less than half the limit in use prove nothing: no growth.
        int before = algorithm.getLimit();
        for (int i = 0; i < 1000; i++) {
            algorithm.onSample(now + i, S, 10, Outcome.SUCCESS);
        }
        assertThat(algorithm.getLimit()).isEqualTo(before);
    }

    @Test
    void settlesBelowTheLimitWhereCallsTimeOut() {
        ClosedLoop loop = new ClosedLoop(aimd(), 200, S).jitter(0.05, 1).timeoutNanos(167 * MS).runRtts(100);
        long from = loop.now();
        loop.runRtts(300);
        // Calls time out from 1.67 × the capacity on: AIMD saws between three quarters of that and that.
        assertThat(loop.minLimitSince(from)).isGreaterThanOrEqualTo(200);
        assertThat(loop.maxLimitSince(from)).isLessThanOrEqualTo(340);
    }

    @Test
    void ignoresRttsAndCountsOnlyDrops() {
        ClosedLoop loop = new ClosedLoop(aimd(AdaptiveLimitConfig.custom().maxLimit(400)), 200, S).runRtts(50);
        long slower = loop.now();
        loop.serviceNanos(10 * S).runRtts(5);
        assertThat(loop.minLimitSince(slower)).isEqualTo(400);
        assertThat(loop.drops()).isZero();
    }

    @Test
    void keepsItsLimitWhenSomeCallsFailWhateverTheLoadAndStillFallsWhenTheCapacityDoes() {
        // A callee with 200 workers where calls fail now and then at any load (a broken node behind it, say). Taking
        // every drop for overload held the limit at 12-45 on average in these loops; the calls that fail although
        // far fewer were in flight than where the last overload began tell the background apart.
        for (double share : new double[] { 0.003, 0.01, 0.02 }) {
            for (long seed = 1; seed <= 3; seed++) {
                ClosedLoop loop = new ClosedLoop(aimd(), 200, S).jitter(0.05, seed)
                    .timeoutNanos(167 * MS)
                    .dropShare(share, seed)
                    .runRtts(100);
                long from = loop.now();
                loop.runRtts(300);
                assertThat(loop.meanLimitSince(from)).as("%s failing, seed %d", share, seed)
                    .isGreaterThanOrEqualTo(200);
                assertThat(loop.getEstimate("backgroundDropShare")).as("%s failing, seed %d", share, seed)
                    .isBetween(share / 3, share * 3);
                // Calls time out from 1.67 × the capacity on; half the workers: from 167 on.
                long halved = loop.now();
                loop.capacity(100).runRtts(10);
                long fell = loop.firstTimeAtOrBelow(halved, 167);
                assertThat(fell).as("%s failing, seed %d", share, seed).isNotEqualTo(-1);
                assertThat(fell - halved).as("%s failing, seed %d", share, seed).isLessThanOrEqualTo(5 * S);
            }
        }
    }

    @Test
    void fallsLessWhenTheCalleeRefusedTheCallAtOnceThanWhenItTimedOut() {
        LimitAlgorithm algorithm = aimd(AdaptiveLimitConfig.custom().initialLimit(100));
        algorithm.onSample(0, S, 100, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).as("first drop while starting halves").isEqualTo(50);
        for (int i = 0; i < 20; i++) {
            // Successful calls take S; with few calls in flight they add no growth.
            algorithm.onSample(2 * S + i, S, 10, Outcome.SUCCESS);
        }
        // Refused after a millisecond: the callee rejects what is above its capacity, there is no queue to drain.
        algorithm.onSample(3 * S, MS, 50, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(45);
        // A timeout: the callee queued the call, and the queue has to drain.
        algorithm.onSample(4 * S, 5 * S, 45, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).isEqualTo(33);
    }

    @Test
    void aConfiguredBackoffRatioAboveATenthOffHoldsAtARefusalToo() {
        LimitAlgorithm algorithm = aimd(AdaptiveLimitConfig.custom().initialLimit(100).backoffRatio(0.95));
        algorithm.onSample(0, S, 100, Outcome.DROPPED);
        for (int i = 0; i < 20; i++) {
            algorithm.onSample(2 * S + i, S, 10, Outcome.SUCCESS);
        }
        algorithm.onSample(3 * S, MS, 50, Outcome.DROPPED);
        assertThat(algorithm.getLimit()).as("0.95 × 50, not 0.9 × 50").isEqualTo(47);
    }

    @Test
    void keepsACalleeThatRejectsAboveItsCapacityNearlyFull() {
        // 200 workers; a call that starts with more in flight is refused at once. Falling by a quarter at each
        // refusal kept 0.86 of the capacity in use on average in the simulation; by a tenth, 0.94.
        ClosedLoop loop = new ClosedLoop(aimd(), 200, S).jitter(0.05, 1).rejectingAboveCapacity().runRtts(100);
        long from = loop.now();
        loop.runRtts(300);
        assertThat(loop.meanLimitSince(from)).isBetween(0.9 * 200, 1.05 * 200);
        assertThat(loop.minLimitSince(from)).isGreaterThanOrEqualTo(170);
    }

    @Test
    void aFailureAtEveryNthCallEndsEveryClimbAtTheSameLimitAsACalleeThatRejectsAboveItWould() {
        // Each such failure ends a climb, so none of them is ever sent clear of where the last one ended: every 100th
        // call failing holds a limit of about 28 against 200 workers, as a callee rejecting calls above 28 would.
        ClosedLoop loop = new ClosedLoop(aimd(), 200, S).jitter(0.05, 1).timeoutNanos(167 * MS).dropEvery(100)
            .runRtts(100);
        long from = loop.now();
        loop.runRtts(300);
        assertThat(loop.meanLimitSince(from)).isBetween(20.0, 40.0);
        assertThat(loop.getEstimate("backgroundDropShare")).isZero();
    }

    @Test
    void honoursTheMinimumAndTheCeilingAndIgnoresIgnoredCalls() {
        ClosedLoop capped = new ClosedLoop(aimd(AdaptiveLimitConfig.custom().maxLimit(150)), 1000, S).runRtts(100);
        assertThat(capped.maxLimitSince(0)).isEqualTo(150);
        LimitAlgorithm floored = aimd(AdaptiveLimitConfig.custom().minLimit(20));
        for (int i = 0; i < 100; i++) {
            floored.onSample(i * 2 * S, S, 20, Outcome.DROPPED);
            assertThat(floored.getLimit()).isGreaterThanOrEqualTo(20);
        }
        assertThat(floored.getLimit()).isEqualTo(20);
        for (int i = 0; i < 100; i++) {
            floored.onSample(300 * S + i, S, 20, Outcome.IGNORED);
        }
        assertThat(floored.getLimit()).isEqualTo(20);
        assertThat(floored.getName()).isEqualTo("aimd");
        assertThat(floored.getEstimates()).containsExactly(java.util.Map.entry("backgroundDropShare", 0.0));
    }
}
