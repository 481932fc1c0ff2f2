package io.github.loombulkhead.limit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/** The window's totals: capped RTTs, its span, and reads that never see part of a call. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class SampleWindowTest {

    private static final long MS = 1_000_000;

    @Test
    void completesOnceEnoughCallsFinishedOverOneNoLoadRtt() {
        SampleWindow window = SampleWindow.after(100 * MS);
        for (int i = 0; i < 16; i++) {
            window.add(i * MS, 100 * MS, 10);
        }
        // Sixteen calls, but their ends span 15 ms only.
        assertThat(window.totals().isComplete(16, 100 * MS)).isFalse();
        window.add(10 * MS, 100 * MS, 10);
        assertThat(window.totals().isComplete(16, 100 * MS)).isFalse();
        window.add(100 * MS, 100 * MS, 40);
        SampleWindow.Totals totals = window.totals();
        assertThat(totals.isComplete(16, 100 * MS)).isTrue();
        assertThat(totals.isComplete(19, 100 * MS)).isFalse();
        assertThat(totals.count()).isEqualTo(18);
        assertThat(totals.meanRtt()).isEqualTo(100 * MS);
        assertThat(totals.meanInflight()).isEqualTo((17 * 10 + 40) / 18.0);
        assertThat(totals.latestEnd() - totals.firstEnd()).isEqualTo(100 * MS);
    }

    @Test
    void anRttCountsWithAtMostFourNoLoadRtts() {
        SampleWindow window = SampleWindow.after(100 * MS);
        window.add(0, 100 * MS, 1);
        window.add(0, 10_000 * MS, 1);
        assertThat(window.totals().meanRtt()).isEqualTo((100 + 400) / 2 * MS);
        // Uncapped, for a callee that turned more than four times slower.
        assertThat(window.totals().meanUncappedRtt()).isEqualTo((100 + 10_000) / 2 * MS);
        assertThat(window.totals().latestEnd()).isEqualTo(10_000 * MS);
        SampleWindow unknown = SampleWindow.after(0);
        unknown.add(0, 10_000 * MS, 1);
        assertThat(unknown.totals().meanRtt()).isEqualTo(10_000 * MS);
    }

    @Test
    void anEmptyWindowHasNoMeansAndIsNeverComplete() {
        SampleWindow.Totals empty = SampleWindow.after(0).totals();
        assertThat(empty.meanRtt()).isZero();
        assertThat(empty.meanUncappedRtt()).isZero();
        assertThat(empty.meanInflight()).isZero();
        assertThat(empty.isComplete(1, 0)).isFalse();
        assertThat(empty.isComplete(1, MS)).isFalse();
    }

    @Test
    void readsRacingWithCallsSeeWholeCallsOnly() throws Exception {
        // Every call has the same RTT and in-flight count: any read that saw a call's RTT without its count, or the
        // other way round, would show another mean.
        long rtt = 300 * MS + 7;
        int calls = 200_000;
        SampleWindow window = SampleWindow.after(0);
        CountDownLatch start = new CountDownLatch(1);
        try (ExecutorService writers = Executors.newFixedThreadPool(2)) {
            CompletableFuture<?>[] done = new CompletableFuture<?>[2];
            for (int w = 0; w < 2; w++) {
                done[w] = CompletableFuture.runAsync(() -> {
                    awaitQuietly(start);
                    for (int i = 0; i < calls; i++) {
                        window.add(i, rtt, 37);
                    }
                }, writers);
            }
            start.countDown();
            int reads = 0;
            int lastCount = 0;
            while (!CompletableFuture.allOf(done).isDone() || reads == 0) {
                SampleWindow.Totals totals = window.totals();
                if (totals.count() > 0) {
                    assertThat(totals.meanRtt()).as("mean RTT of %d calls", totals.count()).isEqualTo(rtt);
                    assertThat(totals.meanInflight()).as("mean in flight of %d calls", totals.count()).isEqualTo(37.0);
                }
                assertThat(totals.count()).isGreaterThanOrEqualTo(lastCount);
                lastCount = totals.count();
                reads++;
            }
            CompletableFuture.allOf(done).get(30, TimeUnit.SECONDS);
        }
        assertThat(window.totals().count()).isEqualTo(2 * calls);
        assertThat(window.totals().meanRtt()).isEqualTo(rtt);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
