package io.github.loombulkhead.sample.measure;

import java.net.SocketTimeoutException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** Every request ends exactly once, counted by outcome, with its latency and the virtual threads it used. */
class CallRecorderTest {

    @Test
    void countsOutcomesByCauseAndPublishesThemAsTimers() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        CallRecorder recorder = new CallRecorder("test", 6, registry);
        recorder.start();
        for (int i = 0; i < 6; i++) {
            recorder.submitted(i);
        }
        recorder.task(0, () -> { }).run();
        recorder.task(1, () -> { }).run();
        recorder.task(2, () -> {
            throw new IllegalStateException(new SocketTimeoutException("Read timed out"));
        }).run();
        recorder.task(3, () -> {
            throw new RejectedExecutionException("full");
        }).run();
        recorder.failed(4, new RejectedExecutionException("refused at submission"));
        CallRecorder.Summary summary = recorder.summary();
        assertThat(summary.succeeded()).isEqualTo(2);
        assertThat(summary.failures(FailureCause.READ_TIMEOUT)).isEqualTo(1);
        assertThat(summary.failures(FailureCause.REJECTED)).isEqualTo(2);
        assertThat(summary.failed()).isEqualTo(3);
        assertThat(recorder.endedCount()).isEqualTo(5);
        assertThat(recorder.abandonUnfinished()).isEqualTo(1);
        assertThat(recorder.summary().failures(FailureCause.OTHER)).isEqualTo(1);
        assertThat(recorder.abandonUnfinished()).isZero();
        assertThat(registry.get("loom.sample.calls").tags("mode", "test", "outcome", "success").timer().count())
            .isEqualTo(2);
        assertThat(registry.get("loom.sample.calls").tags("mode", "test", "outcome", "rejected").timer().count())
            .isEqualTo(2);
    }

    @Test
    void aRequestEndsOnlyOnce() {
        CallRecorder recorder = new CallRecorder("test", 1, null);
        recorder.submitted(0);
        recorder.task(0, () -> { }).run();
        recorder.failed(0, new IllegalStateException("late"));
        assertThat(recorder.summary().succeeded()).isEqualTo(1);
        assertThat(recorder.summary().failed()).isZero();
        assertThat(recorder.endedCount()).isEqualTo(1);
    }

    @Test
    void errorsAreRecordedAndRethrown() {
        CallRecorder recorder = new CallRecorder("test", 1, null);
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> recorder.task(0, () -> {
            throw new AssertionError("boom");
        }).run());
        assertThat(recorder.summary().failures(FailureCause.OTHER)).isEqualTo(1);
    }

    @Test
    void percentilesUseTheNearestRank() {
        long[] nanos = new long[100];
        for (int i = 0; i < 100; i++) {
            nanos[i] = (i + 1) * 1_000_000L;
        }
        assertThat(CallRecorder.percentileMillis(nanos, 0.50)).isEqualTo(50);
        assertThat(CallRecorder.percentileMillis(nanos, 0.99)).isEqualTo(99);
        assertThat(CallRecorder.percentileMillis(new long[] { 7_000_000L }, 0.99)).isEqualTo(7);
        assertThat(CallRecorder.percentileMillis(new long[] { 7_999_999L }, 0.99)).as("truncated like durationMs")
            .isEqualTo(7);
        assertThat(CallRecorder.percentileMillis(new long[0], 0.5)).isZero();
    }

    @Test
    void countsTasksOnVirtualThreadsAtOnce() throws Exception {
        CallRecorder recorder = new CallRecorder("test", 30, null);
        CountDownLatch running = new CountDownLatch(10);
        CountDownLatch release = new CountDownLatch(1);
        try (ExecutorService virtual = Executors.newVirtualThreadPerTaskExecutor();
                ExecutorService platform = Executors.newFixedThreadPool(10)) {
            CompletableFuture<?>[] futures = new CompletableFuture<?>[30];
            for (int i = 0; i < 30; i++) {
                recorder.submitted(i);
                Runnable body = (i < 10) ? () -> {
                    running.countDown();
                    awaitQuietly(release);
                } : () -> { };
                futures[i] = CompletableFuture.runAsync(recorder.task(i, body), (i < 20) ? virtual : platform);
            }
            running.await();
            assertThat(recorder.virtualThreads()).isGreaterThanOrEqualTo(10);
            release.countDown();
            CompletableFuture.allOf(futures).join();
        }
        assertThat(recorder.virtualThreads()).isZero();
        assertThat(recorder.peakVirtualThreads()).isBetween(10, 20);
        assertThat(recorder.summary().succeeded()).isEqualTo(30);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
