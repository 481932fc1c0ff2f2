package io.github.loombulkhead.limit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CallerPausesTest {

    private static final long MS = 1_000_000;

    private final CallerPauses pauses = new CallerPauses();

    @Test
    void aCallThatAPauseTookATenthOfIsDistorted() {
        this.pauses.paused(100 * MS, 130 * MS);
        assertThat(this.pauses.heldUpNanos(0, 300 * MS)).as("30 ms of 300").isEqualTo(30 * MS);
        assertThat(this.pauses.heldUpNanos(0, 301 * MS)).as("30 ms of 301").isZero();
        assertThat(this.pauses.heldUpNanos(120 * MS, 100 * MS)).as("its last 10 ms of a call of 100").isEqualTo(10 * MS);
        assertThat(this.pauses.heldUpNanos(121 * MS, 100 * MS)).as("its last 9 ms of a call of 100").isZero();
    }

    @Test
    void aPauseBeforeOrAfterTheCallDoesNotDistortIt() {
        this.pauses.paused(100 * MS, 150 * MS);
        assertThat(this.pauses.heldUpNanos(0, 100 * MS)).as("ends as the pause begins").isZero();
        assertThat(this.pauses.heldUpNanos(150 * MS, 100 * MS)).as("starts as the pause ends").isZero();
        assertThat(this.pauses.heldUpNanos(200 * MS, 100 * MS)).isZero();
    }

    @Test
    void aPauseShorterThanTheMinimumIsNotRecorded() {
        this.pauses.paused(100 * MS, 100 * MS + CallerPauses.MIN_PAUSE_NANOS - 1);
        assertThat(this.pauses.heldUpNanos(95 * MS, 20 * MS)).isZero();
        this.pauses.paused(200 * MS, 200 * MS + CallerPauses.MIN_PAUSE_NANOS);
        assertThat(this.pauses.heldUpNanos(195 * MS, 20 * MS)).isEqualTo(CallerPauses.MIN_PAUSE_NANOS);
    }

    @Test
    void theLongestSinglePauseCountsNotTheirSum() {
        // Two pauses of 20 ms in a call of 300 ms: 40 ms in all, but neither takes a tenth.
        this.pauses.paused(50 * MS, 70 * MS);
        this.pauses.paused(150 * MS, 170 * MS);
        assertThat(this.pauses.heldUpNanos(0, 300 * MS)).isZero();
    }

    @Test
    void frequentPausesStillDistortTheCallsTheyHeldUp() {
        // A pause of 15 ms every 100 ms: every call of 20 ms that one of them took 2 ms or more of is left out.
        for (int i = 0; i < 20; i++) {
            this.pauses.paused(i * 100 * MS, i * 100 * MS + 15 * MS);
        }
        assertThat(this.pauses.heldUpNanos(1900 * MS + 13 * MS, 20 * MS)).as("2 ms of 20").isEqualTo(2 * MS);
        assertThat(this.pauses.heldUpNanos(1900 * MS + 14 * MS, 20 * MS)).as("1 ms of 20").isZero();
        assertThat(this.pauses.heldUpNanos(1950 * MS, 20 * MS)).as("between two").isZero();
    }

    @Test
    void onlyTheLatestPausesAreKept() {
        for (int i = 0; i < CallerPauses.CAPACITY + 8; i++) {
            this.pauses.paused(i * 1000 * MS, i * 1000 * MS + 50 * MS);
        }
        assertThat(this.pauses.heldUpNanos(0, 100 * MS)).as("the first pause, overwritten").isZero();
        long latest = (CallerPauses.CAPACITY + 7) * 1000 * MS;
        assertThat(this.pauses.heldUpNanos(latest, 100 * MS)).isEqualTo(50 * MS);
        long oldestKept = 8 * 1000 * MS;
        assertThat(this.pauses.heldUpNanos(oldestKept, 100 * MS)).isEqualTo(50 * MS);
    }

    @Test
    void timesAcrossTheWrapOfNanoTimeCompareByTheirDifference() {
        long from = Long.MAX_VALUE - 20 * MS;
        this.pauses.paused(from, from + 50 * MS);
        assertThat(this.pauses.heldUpNanos(from - 100 * MS, 300 * MS)).isEqualTo(50 * MS);
        assertThat(this.pauses.heldUpNanos(from + 60 * MS, 100 * MS)).isZero();
    }

    @Test
    void noPausesDistortNothing() {
        assertThat(this.pauses.heldUpNanos(0, 300 * MS)).isZero();
        assertThat(this.pauses.heldUpNanos(Long.MIN_VALUE + 1, 300 * MS)).isZero();
    }
}
