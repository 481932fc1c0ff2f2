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
        this.signals.dropped(0, 125 * MS, 100, 100 * MS, 20, 0, false);
        assertThat(this.signals.dueEnd()).as("one drop of 20 is within the tolerance").isEqualTo(NanoTimes.NONE);
        this.signals.dropped(0, 125 * MS, 100, 100 * MS, 20, 0, false);
        assertThat(this.signals.dueEnd()).isEqualTo(125 * MS);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(80.0);
        this.signals.dropped(200 * MS, 1000 * MS, 100, 100 * MS, 20, 0, false);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(60.0);
        assertThat(this.signals.takeTarget(120, false, false)).isEqualTo(96.0);
    }

    @Test
    void aKneeLeftBehindByALatencyDecreaseDoesNotReachTheNextDropDecrease() {
        // The drops made a decrease due, but a latency decrease ended later and took its place.
        this.signals.dropped(0, 1000 * MS, 100, 100 * MS, 20, 0, false);
        this.signals.dropped(0, 1000 * MS, 100, 100 * MS, 20, 0, false);
        this.signals.decreased(false, 1000 * MS);
        // Much later, a mild overload: its drops suggest a knee of 100 × 100 / 110 = 90.9, not the old one's 10.
        this.signals.dropped(5000 * MS, 110 * MS, 100, 100 * MS, 20, 0, false);
        this.signals.dropped(5000 * MS, 110 * MS, 100, 100 * MS, 20, 0, false);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(100.0 * 100 / 110);
    }

    @Test
    void dropsWithinTheToleranceMakeNoDecreaseDue() {
        for (int i = 0; i < 19; i++) {
            this.signals.succeeded(10, 20);
        }
        this.signals.dropped(0, 50 * MS, 10, 100 * MS, 20, 0, false);
        assertThat(this.signals.dueEnd()).isEqualTo(NanoTimes.NONE);
        this.signals.dropped(100 * MS, 50 * MS, 10, 100 * MS, 20, 0, false);
        assertThat(this.signals.dueEnd()).isEqualTo(150 * MS);
    }

    @Test
    void aRefusalAtTheEdgeMakesADecreaseDueAtOnceToTheCallsTheCalleeHeld() {
        for (int i = 0; i < 30; i++) {
            this.signals.succeeded(40, 40);
        }
        // Back in 1 ms where the no-load RTT is 100 ms, with 41 in flight where quiet calls started with 40 at most.
        this.signals.dropped(200 * MS, MS, 41, 100 * MS, 40, 40, false);
        assertThat(this.signals.dueEnd()).isEqualTo(201 * MS);
        assertThat(this.signals.takeRefusedAt()).isEqualTo(40);
        assertThat(this.signals.takeRefusedAt()).as("taken once").isZero();
    }

    @Test
    void aRefusalBelowWhatWasProvenOrAfterTheDecreaseBeforeAnySuccessIsLeftToTheTolerance() {
        this.signals.succeeded(45, 40);
        this.signals.dropped(200 * MS, MS, 41, 100 * MS, 40, 45, false);
        assertThat(this.signals.dueEnd()).as("45 were served at once before").isEqualTo(NanoTimes.NONE);
        this.signals.decreased(false, 300 * MS);
        // Nothing sent since the decrease succeeded yet: the callee refuses far below the limit, or fails whatever the
        // load; a refusal alone says nothing about where its capacity is.
        this.signals.dropped(400 * MS, MS, 41, 100 * MS, 40, 0, false);
        assertThat(this.signals.dueEnd()).isEqualTo(NanoTimes.NONE);
        assertThat(this.signals.takeRefusedAt()).isZero();
    }

    @Test
    void whileStartingRefusalsCountOnlyBeyondTheToleranceAndTheLowestOneTellsTheCapacity() {
        this.signals.succeeded(30, 40);
        this.signals.dropped(100 * MS, MS, 41, 100 * MS, 40, 30, true);
        this.signals.dropped(100 * MS, MS, 45, 100 * MS, 40, 30, true);
        assertThat(this.signals.dueEnd()).as("two of 40 are within the tolerance").isEqualTo(NanoTimes.NONE);
        this.signals.dropped(110 * MS, MS, 43, 100 * MS, 40, 30, true);
        assertThat(this.signals.dueEnd()).isEqualTo(111 * MS);
        assertThat(this.signals.takeRefusedAt()).isEqualTo(40);
    }

    @Test
    void refusalsWithinWhatFailsAtOnceWhateverTheLoadAreTolerated() {
        this.signals.succeeded(40, 40);
        this.signals.dropped(0, MS, 41, 100 * MS, 40, 40, false);
        assertThat(this.signals.takeRefusedAt()).isEqualTo(40);
        this.signals.decreased(false, MS);
        this.signals.refusedAbove(38);
        // 100 calls sent at no more than 38 in flight, two of them refused: 2 % fail whatever the load.
        for (int i = 0; i < 98; i++) {
            this.signals.succeeded(38, 40);
        }
        this.signals.dropped(10 * MS, MS, 38, 100 * MS, 40, 38, false);
        this.signals.dropped(10 * MS, MS, 38, 100 * MS, 40, 38, false);
        assertThat(this.signals.backgroundRefusalShare()).isEqualTo(0.02);
        assertThat(this.signals.takeRefusedAt()).as("below the limit, not at the edge").isZero();
        // A round of 40 may now have 0.8 refusals and three standard deviations more: 3.5.
        this.signals.dropped(20 * MS, MS, 39, 100 * MS, 40, 38, false);
        assertThat(this.signals.takeRefusedAt()).isZero();
        for (int i = 0; i < 3; i++) {
            this.signals.dropped(20 * MS, MS, 39, 100 * MS, 40, 38, false);
        }
        assertThat(this.signals.takeRefusedAt()).isEqualTo(38);
    }
}
