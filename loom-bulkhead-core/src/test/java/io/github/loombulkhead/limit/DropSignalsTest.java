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
        this.signals.dropped(0, 125 * MS, 100, 100 * MS, 20);
        assertThat(this.signals.dueEnd()).as("one drop of 20 is within the tolerance").isEqualTo(NanoTimes.NONE);
        this.signals.dropped(0, 125 * MS, 100, 100 * MS, 20);
        assertThat(this.signals.dueEnd()).isEqualTo(125 * MS);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(80.0);
        this.signals.dropped(200 * MS, 1000 * MS, 100, 100 * MS, 20);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(60.0);
        assertThat(this.signals.takeTarget(120, false, false)).isEqualTo(96.0);
    }

    @Test
    void aKneeLeftBehindByALatencyDecreaseDoesNotReachTheNextDropDecrease() {
        // The drops made a decrease due, but a latency decrease ended later and took its place.
        this.signals.dropped(0, 1000 * MS, 100, 100 * MS, 20);
        this.signals.dropped(0, 1000 * MS, 100, 100 * MS, 20);
        this.signals.decreased(false, 1000 * MS);
        // Much later, a mild overload: its drops suggest a knee of 100 × 100 / 110 = 90.9, not the old one's 10.
        this.signals.dropped(5000 * MS, 110 * MS, 100, 100 * MS, 20);
        this.signals.dropped(5000 * MS, 110 * MS, 100, 100 * MS, 20);
        assertThat(this.signals.takeTarget(120, false, true)).isEqualTo(100.0 * 100 / 110);
    }

    @Test
    void dropsWithinTheToleranceMakeNoDecreaseDue() {
        for (int i = 0; i < 19; i++) {
            this.signals.counted(false, 20);
        }
        this.signals.dropped(0, 50 * MS, 10, 100 * MS, 20);
        assertThat(this.signals.dueEnd()).isEqualTo(NanoTimes.NONE);
        this.signals.dropped(100 * MS, 50 * MS, 10, 100 * MS, 20);
        assertThat(this.signals.dueEnd()).isEqualTo(150 * MS);
    }
}
