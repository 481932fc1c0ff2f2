package io.github.loombulkhead;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.CallerPauses;
import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The pause detector, and what an adaptive bulkhead does with a call that a pause of its own process held up. */
class PauseDetectorTest {

    private static final long MS = 1_000_000;

    @Test
    void wakingLateByAtLeastTheMinimumIsAPause() {
        CallerPauses pauses = new CallerPauses();
        long next = PauseDetector.woke(pauses, 0, CallerPauses.MIN_PAUSE_NANOS - 1);
        assertThat(next).isEqualTo(CallerPauses.MIN_PAUSE_NANOS - 1 + PauseDetector.INTERVAL_MILLIS * MS);
        assertThat(pauses.heldUpNanos(-MS, 20 * MS)).as("late by less than the minimum: noise").isZero();
        PauseDetector.woke(pauses, 100 * MS, 150 * MS);
        assertThat(pauses.heldUpNanos(0, 300 * MS)).as("late by 50 ms").isEqualTo(50 * MS);
    }

    @Test
    void theDetectorIsOneDaemonPlatformThread() {
        assertThat(PauseDetector.pauses()).isSameAs(PauseDetector.pauses());
        List<Thread> detectors = Thread.getAllStackTraces()
            .keySet()
            .stream()
            .filter((thread) -> thread.getName().equals(PauseDetector.THREAD_NAME))
            .toList();
        assertThat(detectors).singleElement().satisfies((thread) -> {
            assertThat(thread.isDaemon()).isTrue();
            assertThat(thread.isVirtual()).isFalse();
            assertThat(thread.isAlive()).isTrue();
        });
    }

    @Test
    void anInterruptEndsTheWatchAndStaysSet() throws InterruptedException {
        AtomicBoolean interruptedAfter = new AtomicBoolean();
        Thread watcher = Thread.ofPlatform().start(() -> {
            PauseDetector.watch(new CallerPauses());
            interruptedAfter.set(Thread.currentThread().isInterrupted());
        });
        watcher.interrupt();
        assertThat(watcher.join(Duration.ofSeconds(10))).isTrue();
        assertThat(interruptedAfter).isTrue();
    }

    @Test
    void aSuccessThatAPauseHeldUpGoesToTheAlgorithmAsHeldUpButADropAsItIs() throws ReflectiveOperationException {
        Bulkhead bulkhead = new Bulkhead("paused", BulkheadConfig.custom()
            .maxConcurrentCalls(100)
            .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
            .build());
        Recording algorithm = new Recording();
        CallerPauses pauses = new CallerPauses();
        Object control = field(Bulkhead.class, "limits").get(bulkhead);
        field(LimitControl.class, "algorithm").set(control, algorithm);
        field(LimitControl.class, "pauses").set(control, pauses);
        List<String> sampled = new CopyOnWriteArrayList<>();
        bulkhead.addListener(new BulkheadListener() {
            @Override
            public void onSample(Bulkhead b, long rttNanos, Outcome outcome) {
                sampled.add(outcome.name());
            }

            @Override
            public void onPausedSample(Bulkhead b, long rttNanos, long pausedNanos) {
                sampled.add("held up " + pausedNanos / MS + " ms of " + rttNanos / MS + " ms");
            }
        });
        // This process ran nothing from 200 ms ago to 100 ms ago: a third of a call of 300 ms that just ended.
        long now = System.nanoTime();
        pauses.paused(now - 200 * MS, now - 100 * MS);
        for (Outcome outcome : List.of(Outcome.SUCCESS, Outcome.DROPPED)) {
            assertThat(bulkhead.tryAcquirePermit()).isTrue();
            bulkhead.onComplete(300 * MS, 300 * MS, 1, outcome);
        }
        // A call that began after the pause.
        assertThat(bulkhead.tryAcquirePermit()).isTrue();
        bulkhead.onComplete(50 * MS, 50 * MS, 1, Outcome.SUCCESS);
        assertThat(algorithm.samples).containsExactly("held up 100 ms of 300 ms", "DROPPED", "SUCCESS");
        assertThat(sampled).containsExactly("held up 100 ms of 300 ms", "DROPPED", "SUCCESS");
        assertThat(bulkhead.getActiveCount()).isZero();
    }

    private static Field field(Class<?> type, String name) throws NoSuchFieldException {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    /** Records every sample; keeps the limit. */
    private static final class Recording implements LimitAlgorithm {

        final List<String> samples = new CopyOnWriteArrayList<>();

        @Override
        public String getName() {
            return "recording";
        }

        @Override
        public int getLimit() {
            return 10;
        }

        @Override
        public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
            this.samples.add(outcome.name());
            return 10;
        }

        @Override
        public int onPausedSample(long startNanos, long rttNanos, long pausedNanos, int inflight) {
            this.samples.add("held up " + pausedNanos / MS + " ms of " + rttNanos / MS + " ms");
            return 10;
        }
    }
}
