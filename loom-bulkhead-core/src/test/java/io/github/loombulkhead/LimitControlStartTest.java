package io.github.loombulkhead;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.loombulkhead.limit.AdaptiveLimitConfig;
import io.github.loombulkhead.limit.LimitAlgorithm;
import io.github.loombulkhead.limit.Outcome;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every sample an algorithm takes completes a start it heard of, as its SPI promises. */
class LimitControlStartTest {

    private final List<String> heard = new CopyOnWriteArrayList<>();

    private final Bulkhead bulkhead = new Bulkhead("starts", BulkheadConfig.custom()
        .maxConcurrentCalls(10)
        .adaptive(AdaptiveLimitConfig.custom().initialLimit(10).build())
        .build());

    private final LimitControl control = new LimitControl(this.bulkhead, this.bulkhead.permits(),
            new BulkheadStatistics(), new Recording());

    @Test
    void aCallCompletedWithoutCallStartedIsStartedBeforeItsSample() {
        long ran = TimeUnit.MILLISECONDS.toNanos(3);
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();

        this.control.completed(ran, ran, -1, Outcome.SUCCESS);

        assertThat(this.heard).hasSize(2);
        assertThat(this.heard.get(0)).startsWith("start ").endsWith(" in flight 2");
        assertThat(this.heard.get(1)).startsWith("sample ").endsWith(" in flight 2 " + Outcome.SUCCESS);
        assertThat(startOf(this.heard.get(1))).as("the sample's start is the one reported")
            .isEqualTo(startOf(this.heard.get(0)));
    }

    @Test
    void aCallReportedByCallStartedIsNotStartedTwice() {
        long ran = TimeUnit.MILLISECONDS.toNanos(3);
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        int inflight = this.control.started();
        this.control.completed(ran, ran, inflight, Outcome.DROPPED);

        assertThat(this.heard).hasSize(2);
        assertThat(this.heard.get(0)).startsWith("start ").endsWith(" in flight 1");
        assertThat(this.heard.get(1)).startsWith("sample ").endsWith(" in flight 1 " + Outcome.DROPPED);
    }

    @Test
    void aCallThatGivesNoSampleIsNotStarted() {
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        this.control.completed(0, 0, -1, Outcome.IGNORED);
        assertThat(this.bulkhead.tryAcquirePermit()).isTrue();
        this.control.completed(5, 5, -1, Outcome.IGNORED);

        assertThat(this.heard).isEmpty();
    }

    private static String startOf(String heard) {
        return heard.split(" ")[1];
    }

    private final class Recording implements LimitAlgorithm {

        @Override
        public String getName() {
            return "recording";
        }

        @Override
        public int getLimit() {
            return 10;
        }

        @Override
        public void onStart(long startNanos, int inflight) {
            LimitControlStartTest.this.heard.add("start " + startNanos + " in flight " + inflight);
        }

        @Override
        public int onSample(long startNanos, long rttNanos, int inflight, Outcome outcome) {
            LimitControlStartTest.this.heard.add("sample " + startNanos + " in flight " + inflight + " " + outcome);
            return 10;
        }
    }
}
