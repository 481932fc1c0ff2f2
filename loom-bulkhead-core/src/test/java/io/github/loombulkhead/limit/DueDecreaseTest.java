package io.github.loombulkhead.limit;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** One overload, one decrease: also when the calls of one round mark it due around the decrease they caused. */
class DueDecreaseTest {

    private static final long MS = 1_000_000;

    @Test
    void pendingUntilADecreaseAtOrAfterTheCallsThatMadeItDue() {
        DueDecrease due = new DueDecrease();
        assertThat(due.isPending(NanoTimes.NONE)).isFalse();
        due.due(0, 500 * MS);
        assertThat(due.isPending(NanoTimes.NONE)).isTrue();
        assertThat(due.end()).isEqualTo(500 * MS);
        // The decrease is made at the end of the latest call that made it due.
        assertThat(due.isPending(500 * MS)).isFalse();
    }

    @Test
    void aCallThatStartedBeforeTheDecreaseDoesNotMakeAnotherOneDue() {
        DueDecrease due = new DueDecrease();
        due.due(0, 500 * MS);
        long decrease = due.end();
        // Started with the others, it ended later and was counted just after the decrease.
        due.due(0, 510 * MS);
        assertThat(due.isPending(decrease)).isFalse();
        // A call sent after the decrease does.
        due.due(600 * MS, 1100 * MS);
        assertThat(due.isPending(decrease)).isTrue();
    }

    @Test
    void aCollapseMakesADecreaseDueAsOfNow() {
        DueDecrease due = new DueDecrease();
        due.due(0, 500 * MS);
        long decrease = due.end();
        due.dueNow(900 * MS);
        assertThat(due.isPending(decrease)).isTrue();
        assertThat(due.end()).isEqualTo(900 * MS);
    }

    /**
     * Calls that started together and time out together, finishing on several threads at once: whichever thread
     * applies the decrease, the others' drops started before it. The start halves the limit once.
     */
    @ParameterizedTest
    @EnumSource(AdaptiveLimitConfig.Algorithm.class)
    void dropsOfOneRoundFinishingTogetherDecreaseOnce(AdaptiveLimitConfig.Algorithm name) throws Exception {
        int threads = 12;
        int trials = 3_000;
        CyclicBarrier together = new CyclicBarrier(threads);
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (int trial = 0; trial < trials; trial++) {
                LimitAlgorithm algorithm = LimitAlgorithm
                    .of(AdaptiveLimitConfig.custom().algorithm(name).initialLimit(100).minLimit(1).build());
                long start = trial * 10_000 * MS;
                Future<?>[] calls = new Future<?>[threads];
                for (int i = 0; i < threads; i++) {
                    long rtt = 500 * MS + i;
                    calls[i] = pool.submit(() -> {
                        together.await();
                        return algorithm.onSample(start, rtt, 100, Outcome.DROPPED);
                    });
                }
                for (Future<?> call : calls) {
                    call.get(10, TimeUnit.SECONDS);
                }
                assertThat(algorithm.getLimit()).as("limit after trial %d", trial).isEqualTo(50);
            }
        }
    }
}
