package io.github.loombulkhead.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The drop signals of the gradient on their own: when a decrease is due and how far it goes. */
class DropSignalsTest {

    private static final long MS = 1_000_000;

    private final DropSignals signals = new DropSignals(AdaptiveLimitConfig.ofDefaults());

    @Test
    void theFirstDropDecreaseOfAnOverloadFallsToTheKneeTheDropsSuggestNeverBelowHalf() {
        // 100 in flight, no-load 100 ms, the drops took 125 ms: the knee is 80, under the backoff's 0.8 × 120 = 96.
        this.signals.dropped(0, 125 * MS, 100, 100 * MS, 20, 0, false, false);
        assertThat(this.signals.dueEnd()).as("one drop of 20 is within the tolerance").isEqualTo(NanoTimes.NONE);
        this.signals.dropped(0, 125 * MS, 100, 100 * MS, 20, 0, false, false);
        assertThat(this.signals.dueEnd()).isEqualTo(125 * MS);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(80.0);
        this.signals.dropped(200 * MS, 1000 * MS, 100, 100 * MS, 20, 0, false, false);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(60.0);
        assertThat(this.signals.takeTarget(120, false, false)).isEqualTo(96.0);
    }

    @Test
    void aKneeLeftBehindByALatencyDecreaseDoesNotReachTheNextDropDecrease() {
        // The drops made a decrease due, but a latency decrease ended later and took its place.
        this.signals.dropped(0, 1000 * MS, 100, 100 * MS, 20, 0, false, false);
        this.signals.dropped(0, 1000 * MS, 100, 100 * MS, 20, 0, false, false);
        this.signals.decreased(false, 1000 * MS);
        // Much later, a mild overload: its drops suggest a knee of 100 × 100 / 110 = 90.9, not the old one's 10.
        this.signals.dropped(5000 * MS, 110 * MS, 100, 100 * MS, 20, 0, false, false);
        this.signals.dropped(5000 * MS, 110 * MS, 100, 100 * MS, 20, 0, false, false);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(100.0 * 100 / 110);
    }

    @Test
    void dropsWithinTheToleranceMakeNoDecreaseDue() {
        for (int i = 0; i < 19; i++) {
            this.signals.succeeded(20);
        }
        this.signals.dropped(0, 50 * MS, 10, 100 * MS, 20, 0, false, false);
        assertThat(this.signals.dueEnd()).isEqualTo(NanoTimes.NONE);
        this.signals.dropped(100 * MS, 50 * MS, 10, 100 * MS, 20, 0, false, false);
        assertThat(this.signals.dueEnd()).isEqualTo(150 * MS);
    }

    @Test
    void whileTheCalleeShowsNoQueueARoundMayDropThreeStandardDeviationsMore() {
        // Rounds of 40 with a tolerance of 5 %: 2 drops, and 2 + 3 × √(40 × 0.05 × 0.95) = 6.1 while the callee is quiet.
        for (int i = 0; i < 6; i++) {
            timeout(0, true);
        }
        assertThat(this.signals.isDue(NanoTimes.NONE)).as("six timeouts of a quiet callee").isFalse();
        timeout(0, true);
        assertThat(this.signals.isDue(NanoTimes.NONE)).isTrue();
        this.signals.decreased(false, 500 * MS);
        timeout(600 * MS, true);
        timeout(600 * MS, false);
        assertThat(this.signals.isDue(500 * MS)).as("two timeouts, the second while it queues").isFalse();
        timeout(600 * MS, false);
        assertThat(this.signals.isDue(500 * MS)).isTrue();
    }

    @Test
    void aDropNoSlowerThanACallWithoutLoadIsNoNoiseWhileTheCalleeIsQuiet() {
        // A 503 back in 80 ms where the no-load RTT is 100 ms (a refusal over a slow network), then one in 1 ms below
        // the edge: refusals, not calls the callee's noise took past the timeout. The plain tolerance: 2 of 40.
        quietDrop(80 * MS);
        quietDrop(MS);
        assertThat(this.signals.isDue(NanoTimes.NONE)).isFalse();
        quietDrop(80 * MS);
        assertThat(this.signals.isDue(NanoTimes.NONE)).isTrue();
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).as("none at the edge").isZero();
    }

    /** A call sent at {@code startNanos} that timed out after 500 ms (no-load RTT 100 ms), in a round of 40. */
    private void timeout(long startNanos, boolean quiet) {
        this.signals.finished(true, startNanos, 500 * MS, 30, 100 * MS);
        this.signals.dropped(startNanos, 500 * MS, 30, 100 * MS, 40, 30, false, quiet);
    }

    /** A call sent with 10 in flight (the edge is at 30) that failed after {@code rttNanos}, while the callee is quiet. */
    private void quietDrop(long rttNanos) {
        this.signals.finished(true, 0, rttNanos, 10, 100 * MS);
        this.signals.dropped(0, rttNanos, 10, 100 * MS, 40, 30, false, true);
    }

    @Test
    void aRefusalAtTheEdgeMakesADecreaseDueAtOnceToTheCallsTheCalleeHeld() {
        for (int i = 0; i < 30; i++) {
            success(40);
        }
        // Back in 1 ms where the no-load RTT is 100 ms, with 41 in flight where quiet calls started with 40 at most.
        refusal(200 * MS, 41, 40, false);
        assertThat(this.signals.dueEnd()).isEqualTo(201 * MS);
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).isEqualTo(40);
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).as("taken once").isZero();
    }

    @Test
    void aRefusalBelowTheEdgeOrBeforeACallSentSinceTheDecreaseSucceededIsLeftToTheTolerance() {
        success(45);
        refusal(200 * MS, 42, 45, false);
        assertThat(this.signals.dueEnd()).as("45 were served at once before").isEqualTo(NanoTimes.NONE);
        this.signals.decreased(false, 300 * MS);
        // Nothing sent since the decrease succeeded yet: the callee refuses far below the limit (here 40, which stands
        // in for what quiet calls proved while none came back), and a refusal alone says nothing about its capacity.
        refusal(400 * MS, 41, 40, false);
        // A slow success proves nothing; a call refused with 3 in flight is far from the edge.
        this.signals.succeeded(40);
        refusal(400 * MS, 3, 40, false);
        assertThat(this.signals.dueEnd()).isEqualTo(NanoTimes.NONE);
        assertThat(this.signals.takeRefusedAt(300 * MS)).isZero();
    }

    @Test
    void aRefusalWithinAFewPercentBelowWhatWasProvenIsAtTheEdge() {
        // The server still counted a request whose answer the caller had already read.
        success(40);
        refusal(200 * MS, 39, 40, false);
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).isEqualTo(38);
    }

    @Test
    void aRefusalSentBeforeTheLastDecreaseIsNotTaken() {
        success(40);
        refusal(200 * MS, 41, 40, false);
        // Another decrease was made meanwhile, after this refusal started: it describes the limit before that one.
        assertThat(this.signals.takeRefusedAt(250 * MS)).isZero();
        refusal(300 * MS, 41, 40, false);
        refusal(310 * MS, 43, 40, false);
        assertThat(this.signals.takeRefusedAt(250 * MS)).as("the later of two").isEqualTo(42);
    }

    @Test
    void whileStartingRefusalsCountOnlyBeyondTheToleranceAndTheLowestOneTellsTheCapacity() {
        success(30);
        refusal(100 * MS, 41, 30, true);
        refusal(100 * MS, 45, 30, true);
        assertThat(this.signals.dueEnd()).as("two of 40 are within the tolerance").isEqualTo(NanoTimes.NONE);
        refusal(110 * MS, 43, 30, true);
        assertThat(this.signals.dueEnd()).isEqualTo(111 * MS);
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).isEqualTo(40);
    }

    @Test
    void whileStartingNoRefusalTellsLessThanAQuietCallProved() {
        success(10);
        // Failed at once early in the start, when few calls had come back: a failure of the background.
        refusal(10 * MS, 12, 10, true);
        success(40);
        refusal(100 * MS, 45, 40, true);
        refusal(100 * MS, 46, 40, true);
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).as("40 were served at once").isEqualTo(40);
    }

    @Test
    void refusalsWithinWhatFailsAtOnceWhateverTheLoadAreTolerated() {
        learnABackgroundShareOfTwoPercent();
        // Each refusal counts toward the share before its round does: two in a round are within what it then tolerates.
        assertThat(this.signals.takeRefusedAt(MS)).isZero();
        // A round of 40 may now have 0.8 refusals and three standard deviations more: 3.5. That holds for the round's
        // drops as a whole too, though its tolerance of 5 % is 2: else every third refusal took a fifth off.
        refusal(20 * MS, 40, 38, false);
        assertThat(this.signals.isDue(MS)).isFalse();
        assertThat(this.signals.takeRefusedAt(MS)).isZero();
        for (int i = 0; i < 3; i++) {
            refusal(20 * MS, 40, 38, false);
        }
        assertThat(this.signals.isDue(MS)).isTrue();
        assertThat(this.signals.takeRefusedAt(MS)).isEqualTo(39);
    }

    @Test
    void aRefusalAtTheEdgeThatTakesTheRoundsDropsBeyondTheToleranceTellsHowFarToFall() {
        learnABackgroundShareOfTwoPercent();
        // A new round (sent with 39 in flight: not counted toward the share): three calls time out, and then one is
        // refused at the edge. Four drops are beyond the 3.5 the round tolerates; one refusal is within what fails
        // whatever the load, but it tells where the callee refuses.
        for (int i = 0; i < 40; i++) {
            success(39);
        }
        for (int i = 0; i < 3; i++) {
            this.signals.finished(true, 20 * MS, 500 * MS, 39, 100 * MS);
            this.signals.dropped(20 * MS, 500 * MS, 39, 100 * MS, 40, 38, false, false);
        }
        assertThat(this.signals.isDue(MS)).isFalse();
        refusal(30 * MS, 40, 38, false);
        assertThat(this.signals.isDue(MS)).isTrue();
        assertThat(this.signals.takeRefusedAt(MS)).isEqualTo(39);
    }

    /**
     * A refusal decrease to 38, and then 100 calls sent with no more than 38 in flight, two of them refused: 2 % fail
     * whatever the load. The decrease was made at 1 ms.
     */
    private void learnABackgroundShareOfTwoPercent() {
        success(40);
        refusal(0, 41, 40, false);
        assertThat(this.signals.takeRefusedAt(NanoTimes.NONE)).isEqualTo(40);
        this.signals.decreased(false, MS);
        this.signals.refusedAbove(38);
        for (int i = 0; i < 98; i++) {
            success(38);
        }
        refusal(10 * MS, 38, 38, false);
        refusal(10 * MS, 38, 38, false);
        assertThat(this.signals.backgroundRefusalShare()).isEqualTo(0.02);
    }

    @Test
    void everyFinishedCallCountsTowardTheBackgroundByItsInflightAlone() {
        this.signals.refusedAbove(38);
        // Whenever they were sent: successes take a round trip and refusals a millisecond, so most successes come back
        // after the next decrease, and counting only the calls sent since would count nearly every refusal and few
        // successes (GradientLimitTest.learnsWhatARefusingCalleeFailsWhateverTheLoadAndStillKeepsItFull).
        for (int i = 0; i < 99; i++) {
            this.signals.finished(false, 0, 100 * MS, 38, 100 * MS);
        }
        this.signals.finished(true, 0, MS, 38, 100 * MS);
        this.signals.finished(true, 0, MS, 39, 100 * MS);
        this.signals.finished(true, 0, 500 * MS, 38, 100 * MS);
        assertThat(this.signals.backgroundRefusalShare()).as("one of 101 refused below the limit; a timeout is none")
            .isEqualTo(1.0 / 101);
    }

    /** A quiet success with {@code inflight} in flight, as the gradient reports it. */
    private void success(int inflight) {
        this.signals.finished(false, 0, 100 * MS, inflight, 100 * MS);
        this.signals.succeeded(40);
    }

    /** A call refused after 1 ms (no-load RTT 100 ms, rounds of 40), as the gradient reports it. */
    private void refusal(long startNanos, int inflight, int proven, boolean starting) {
        this.signals.finished(true, startNanos, MS, inflight, 100 * MS);
        this.signals.dropped(startNanos, MS, inflight, 100 * MS, 40, proven, starting, false);
    }
}
